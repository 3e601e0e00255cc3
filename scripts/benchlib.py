"""Helpers shared by the benchmarks: corpora, a real daemon process, RSS readings."""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "clients"), str(ROOT / "daemon")]
sys.path.append(str(ROOT / "tests"))  # browserlib: the one chromium launcher, shared with the browser tests

from graphmem.client import GraphMem  # noqa: E402
from graphmem.errors import GraphMemError  # noqa: E402
from graphmem.types import EventKind  # noqa: E402

EXCLUDED = {"test", "tests", "site-packages", "__pycache__"}
#: the real histories (git bundles): ``../shared/corpora`` next to the repository, or next to
#: its worktrees' parent
CORPORA = next(
    (p for p in (ROOT.parent / "shared" / "corpora", ROOT.parent.parent / "shared" / "corpora") if p.exists()),
    ROOT.parent / "shared" / "corpora",
)


def stdlib_corpus(dest: Path) -> Path:
    """A copy of the running interpreter's standard library .py files, without test folders."""
    src = Path(sysconfig.get_paths()["stdlib"])
    out = dest / "stdlib"
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED)
        rel = Path(dirpath).relative_to(src)
        for name in filenames:
            if name.endswith(".py"):
                target = out / rel / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(dirpath) / name, target)
    return out


def mixed_corpus(dest: Path) -> Path:
    out = dest / "mixed"
    for lang in sorted(p for p in (ROOT / "fixtures" / "repos").iterdir() if p.is_dir()):
        shutil.copytree(lang, out / lang.name)
    return out


def short_home() -> Path:
    return Path(tempfile.mkdtemp(prefix="gmb", dir="/tmp"))


class DaemonProc:
    def __init__(
        self,
        home: Path,
        repos: list[Path] = (),  # type: ignore[assignment]
        workers: int | None = None,
        env: dict[str, str] | None = None,
        code: Path = ROOT,
    ) -> None:
        """A daemon on ``home`` running the code of the checkout ``code`` (this one by default;
        another, e.g. an older commit's ``git archive``, to compare with it)."""
        env = dict(os.environ, GRAPHMEM_HOME=str(home), **(env or {}))
        if workers:
            env["GRAPHMEM_PARSE_WORKERS"] = str(workers)
        args = [sys.executable, "-m", "graphmemd", "run"]
        for r in repos:
            args += ["--repo", str(r)]
        env["PYTHONPATH"] = os.pathsep.join([str(code / "clients"), str(code / "daemon"), env.get("PYTHONPATH", "")])
        self.home = home
        self.proc = subprocess.Popen(
            args, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.sampler = TreeSampler(self.proc.pid)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with self.client(1) as c:
                    if c.health():
                        self._start_marks()
                        return
            except GraphMemError:
                pass
            if self.proc.poll() is not None:
                break  # it exited (an import error, a bad store): no point waiting out the deadline
            time.sleep(0.05)
        self.proc.kill()  # a daemon that never became healthy is not left running
        self.proc.wait()
        self.sampler.close()
        raise RuntimeError(f"daemon did not become healthy (exit code {self.proc.returncode})")

    def _start_marks(self) -> None:
        """Record when the daemon reports INDEX_QUERYABLE / INDEX_DURABLE (from the start of
        its event buffer, so nothing published before the subscription is missed)."""
        self.marks = {k: threading.Event() for k in (EventKind.INDEX_QUERYABLE, EventKind.INDEX_DURABLE)}
        # per checkout: how many of each mark it has reported so far (a checkout's later passes
        # report again; the first checkout's mark says nothing of another's writes)
        self.repo_marks: dict[tuple[EventKind, str], int] = {}
        self._marked = threading.Condition()
        stream = self.client().events(kinds=list(self.marks), after_seq=0)

        def run() -> None:
            try:
                for e in stream:
                    if e.kind in self.marks:
                        self.marks[e.kind].set()
                        with self._marked:
                            key = (e.kind, e.repo_id)
                            self.repo_marks[key] = self.repo_marks.get(key, 0) + 1
                            self._marked.notify_all()
            except GraphMemError:
                pass  # the daemon stopped

        threading.Thread(target=run, daemon=True).start()

    def _wait_mark(self, kind: EventKind, timeout: float) -> None:
        if not self.marks[kind].wait(timeout):
            raise RuntimeError(f"the daemon never reported {kind.value}")

    def client(self, timeout: float = 30) -> GraphMem:
        return GraphMem(home=str(self.home), timeout=timeout)

    def wait_ready(self, timeout: float = 600) -> None:
        """Until every repository is READY with no pending change and retrieval reports the
        index current (the answer is computed from the in-memory graph; store writes may
        still be in flight: see ``wait_durable``)."""
        deadline = time.monotonic() + timeout
        with self.client() as c:
            while time.monotonic() < deadline:
                st = c.status()
                if st.repositories and all(r.state.value == "ready" and not r.pending_changes for r in st.repositories):
                    probe = st.repositories[0].root
                    if c.recall(files=[probe + "/__graphmem_probe__.py"]).freshness.current:
                        return
                time.sleep(0.02)
        raise RuntimeError("index did not finish")

    def wait_queryable(self, timeout: float = 600) -> None:
        """Until every query kind answers completely: ``wait_ready``, the daemon reported
        INDEX_QUERYABLE, and a text query no longer reports the symbol text index as being rebuilt."""
        self.wait_ready(timeout)
        self._wait_mark(EventKind.INDEX_QUERYABLE, timeout)
        deadline = time.monotonic() + timeout
        with self.client() as c:
            while time.monotonic() < deadline:
                if not any("being rebuilt" in w for w in c.recall("zz-no-such-term-zz").warnings):
                    return
                time.sleep(0.02)
        raise RuntimeError("text search did not become complete")

    def wait_durable(self, timeout: float = 600, repo_id: str | None = None, count: int = 1) -> None:
        """Until the daemon reports INDEX_DURABLE (every store write of the index pass done:
        graph, text index, cached parses) and a text query, which takes the store's lock,
        answers behind any write still running. Without ``repo_id`` any checkout's first mark
        will do (it is set once, by the first checkout to report one: after it this returns
        at once); with it, until *that* checkout reported the mark ``count`` times."""
        if repo_id is None:
            self._wait_mark(EventKind.INDEX_DURABLE, timeout)
        else:
            key = (EventKind.INDEX_DURABLE, repo_id)
            with self._marked:
                if not self._marked.wait_for(lambda: self.repo_marks.get(key, 0) >= count, timeout):
                    raise RuntimeError(f"{repo_id} never reported {key[0].value}")
        with self.client(timeout) as c:
            c.recall("zz-no-such-term-zz")

    def wait_idle(self, quiet: float = 1.0, timeout: float = 600) -> float:
        """Until the daemon and its children used under 2 % of a CPU for ``quiet`` seconds
        (store writes queued behind the last change, idle work): peaks read after this
        include them. Returns the seconds waited, the quiet period included.

        The CPU used is summed per process, each live process's growth since it was last
        seen: a process that exits (a parse worker idle long enough, reaped at once by the
        forkserver) takes its CPU seconds out of a plain sum over the live tree, and a sum
        that fell by a worker's few seconds read as seconds of quiet while the daemon itself
        still ran at ~85 % of a CPU (the twenty-sixth session's early returns)."""
        seen = _cpu_by_pid([self.proc.pid, *_descendants(self.proc.pid)])
        total = 0.0

        def used() -> float:
            nonlocal seen, total
            now = _cpu_by_pid([self.proc.pid, *_descendants(self.proc.pid)])
            total += sum(cpu - seen.get(pid, 0.0) for pid, cpu in now.items())
            seen = now
            return total

        start = time.monotonic()
        deadline = start + timeout
        last, since = used(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = used()
            if now - last > 0.02 * (time.monotonic() - since):
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return time.monotonic() - start
        tree = [self.proc.pid, *_descendants(self.proc.pid)]
        raise RuntimeError(f"the daemon did not become idle; {busy_threads(tree)}")

    def peak_rss_mb(self) -> dict[str, float]:
        """Peak RSS in MB since the daemon started (``TreeSampler``): ``tree``, the whole
        process tree (daemon, forkserver, resource tracker, parse workers) at its largest;
        ``daemon``, the daemon's own peak (VmHWM); ``workers``, the sum of every parse worker's
        own peak, workers that already exited included; ``sum_of_peaks``, the daemon's and
        every child's own peak added up (an upper bound: they need not peak together)."""
        return self.sampler.peaks()

    def stop(self) -> None:
        try:
            with self.client(5) as c:
                c.shutdown()
            self.proc.wait(30)
        except (GraphMemError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.sampler.close()


class TreeSampler:
    """Samples the RSS of a process and all its descendants every ``every`` seconds on a
    thread: the largest sum over one sample (what the tree held at once) and each process's
    own peak (VmHWM, kept after it exits). Parse workers exit when idle and new ones start,
    so the peaks of the processes alive at the end are not the tree's peak."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid = pid
        self.every = every
        self.tree_kb = 0.0
        self.hwm_kb: dict[int, float] = {}
        self.workers: set[int] = set()
        self.commands: dict[int, str] = {}  # pid -> its command name (/proc/<pid>/comm)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tree-sampler", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            if not self.sample():
                return  # the daemon is gone (e.g. killed): nothing more to sample

    def sample(self) -> bool:
        """Read every process of the tree once; False when the root process is gone."""
        if _rss_hwm(self.pid)[1] <= 0:
            return False
        parents = _tree(self.pid)
        total = 0.0
        with self._lock:
            for p in [self.pid, *parents]:
                rss, hwm = _rss_hwm(p)
                if hwm <= 0:
                    continue  # gone
                total += rss
                self.hwm_kb[p] = max(self.hwm_kb.get(p, 0.0), hwm)
                if p not in self.commands:
                    self.commands[p] = _comm(p)
                if p != self.pid and parents[p] != self.pid:  # the daemon's own children: forkserver, tracker
                    self.workers.add(p)
            self.tree_kb = max(self.tree_kb, total)
        return True

    def peaks(self) -> dict[str, float]:
        """The peaks so far in MB (see ``DaemonProc.peak_rss_mb``)."""
        self.sample()
        with self._lock:
            return {
                "tree": self.tree_kb / 1024,
                "daemon": self.hwm_kb.get(self.pid, 0.0) / 1024,
                "workers": sum(self.hwm_kb.get(p, 0.0) for p in self.workers) / 1024,
                "sum_of_peaks": sum(self.hwm_kb.values()) / 1024,
                **{f"largest {c}": v / 1024 for c, v in self._largest_by_command().items()},
            }

    def _largest_by_command(self) -> dict[str, float]:
        """The largest own peak (KB) of any process of each command name but the daemon's
        (``git`` above all: ``git blame`` and ``git cat-file`` are the daemon's children too)."""
        out: dict[str, float] = {}
        for p, c in self.commands.items():
            if p != self.pid:
                out[c] = max(out.get(c, 0.0), self.hwm_kb.get(p, 0.0))
        return out

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def _comm(pid: int) -> str:
    """The command name of ``pid`` ("?" when it is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or "?"
    except OSError:
        return "?"


def _rss_hwm(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of ``pid`` in KB; (0, 0) when it is gone."""
    rss = hwm = 0.0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = float(line.split()[1])
            elif line.startswith("VmHWM:"):
                hwm = float(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def _stat_fields(stat: Path) -> list[str] | None:
    """The fields of a ``/proc/<pid>/stat`` file after the command name (None: it is gone)."""
    try:
        return stat.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _thread_cpu(pids: list[int]) -> dict[tuple[int, int], tuple[str, float]]:
    """(pid, thread id) -> (the thread's OS name, its CPU seconds so far), for ``pids``."""
    out: dict[tuple[int, int], tuple[str, float]] = {}
    tck = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            fields = _stat_fields(task / "stat")
            try:
                name = (task / "comm").read_text().strip()
            except OSError:
                continue
            if fields is not None:
                out[(pid, int(task.name))] = (name, (int(fields[11]) + int(fields[12])) / tck)
    return out


def busy_threads(pids: list[int], seconds: float = 5.0, top: int = 6) -> str:
    """Which threads of ``pids`` used CPU over the next ``seconds`` (their OS names: the
    daemon names its loops ``gm-<loop>``), busiest first: what a run that never gets idle
    prints before it gives up."""
    before = _thread_cpu(pids)
    time.sleep(seconds)
    after = _thread_cpu(pids)
    used = sorted(((cpu - before.get(key, (name, 0.0))[1], name, key) for key, (name, cpu) in after.items()),
                  reverse=True)[:top]  # fmt: skip
    busy = ", ".join(f"{name} ({pid}/{tid}) {100 * cpu / seconds:.1f}%" for cpu, name, (pid, tid) in used if cpu > 0)
    return f"CPU by thread over {seconds:.0f} s: {busy or 'none'}"


def _cpu_by_pid(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each of ``pids`` still alive."""
    tck = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    for pid in pids:
        fields = _stat_fields(Path(f"/proc/{pid}/stat"))
        if fields is not None:
            out[pid] = (int(fields[11]) + int(fields[12])) / tck
    return out


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of ``pids`` (those still alive), in seconds."""
    total = 0
    for pid in pids:
        fields = _stat_fields(Path(f"/proc/{pid}/stat"))
        if fields is not None:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> tuple[float, float]:
    """(CPU seconds of ``pid`` itself, CPU seconds of every other process of its tree): user +
    system time of each live descendant, plus what the live processes' reaped children used
    (parse workers that exited when idle are counted by the forkserver that reaped them)."""
    tck = os.sysconf("SC_CLK_TCK")
    own = _stat_fields(Path(f"/proc/{pid}/stat"))
    if own is None:
        return 0.0, 0.0
    others = int(own[13]) + int(own[14])
    for kid in _descendants(pid):
        fields = _stat_fields(Path(f"/proc/{kid}/stat"))
        if fields is not None:
            others += sum(int(f) for f in fields[11:15])
    return (int(own[11]) + int(own[12])) / tck, others / tck


def _tree(pid: int) -> dict[int, int]:
    """Every descendant of ``pid`` with its parent (one pass over ``/proc``)."""
    children: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            fields = _stat_fields(p / "stat")
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(p.name))
    out: dict[int, int] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for kid in children.get(parent, []):
            out[kid] = parent
            todo.append(kid)
    return out


def _descendants(pid: int) -> list[int]:
    """Every descendant of ``pid``."""
    return list(_tree(pid))


def corpus_bundle(name: str, where: Path | None = None) -> Path:
    """The git bundle of a real history (``<name>.bundle``): in ``where``, else in
    ``shared/corpora`` beside or above the checkout; SystemExit naming where it looked."""
    bases = (
        [where]
        if where is not None
        else [ROOT.parent / "shared" / "corpora", ROOT.parent.parent / "shared" / "corpora"]
    )
    for base in bases:
        path = base / f"{name}.bundle"
        if path.exists():
            return path
    raise SystemExit(f"no corpus bundle {name}.bundle in {', '.join(map(str, bases))}")


def tree_rss_mb(pid: int) -> float:
    """The RSS of ``pid`` and every descendant now, in MB."""
    return sum(_rss_hwm(p)[0] for p in [pid, *_descendants(pid)]) / 1024


def load_average() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def check_quiet(label: str, *, strict: bool = False) -> float:
    """Print the 1-minute load average before a measurement and warn loudly (or, ``strict``,
    refuse) when the machine is busy: more than half a core's worth of other work."""
    load = load_average()
    busy = load > max(0.5, (os.cpu_count() or 1) * 0.25)
    note = "  *** WARNING: the machine is busy; figures are not comparable ***" if busy else ""
    print(f"[load average {load:.2f} before {label}]{note}", file=sys.stderr)
    if busy and strict:
        raise SystemExit(f"refusing to measure {label}: load average {load:.2f} (use a quiet machine)")
    return load


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    if not s:
        return 0.0
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def log_lines(home: Path, since: int = 0) -> list[str]:
    """The log of the daemon whose home is ``home``, from byte ``since`` on."""
    with (home / "state" / "graphmemd.log").open(encoding="utf-8") as f:
        f.seek(since)
        return f.read().splitlines()


def log_size(home: Path) -> int:
    """The size of that daemon's log in bytes (0 before it exists): where to read from next."""
    path = home / "state" / "graphmemd.log"
    return path.stat().st_size if path.exists() else 0


def code_trees(against: Path | None) -> list[Path]:
    """The code trees a benchmark alternates: this one, then ``against`` (another checkout's
    ``daemon/`` and ``clients/``) with its bytecode compiled first."""
    codes = [ROOT] + ([against.resolve()] if against else [])
    for code in codes[1:]:
        compileall.compile_dir(str(code / "daemon"), quiet=1)
        compileall.compile_dir(str(code / "clients"), quiet=1)
    return codes
