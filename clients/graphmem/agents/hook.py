"""``graphmem hook session-start|post-edit``: the commands a coding client runs on its lifecycle events.

Built to be fast and harmless: reached from the ``graphmem`` entry point without loading the
CLI (``graphmem.launcher``), it loads neither grpc nor protobuf for the local daemon: ``wire``
writes and reads its two messages and ``h2call`` makes the gRPC call over the Unix socket with
the ``h2`` library (a TCP address goes through grpc). It reads the client's payload on stdin
(``hookio``), asks the daemon with a short deadline, prints the client's documented output and
always exits 0. When the daemon is not running (its socket is missing: nothing is even
imported), does not answer in time, or the working directory is in no registered repository,
it prints nothing.

session-start: the repository's brief (``SessionBrief`` with no files) within ``--budget``
tokens (``SESSION_BUDGET`` by default). post-edit: only what the edit changed, the notes it just
made stale or suspect (``EditContext``, which first lets the index take in the saved files, for
at most ``--wait-ms``); nothing when it changed nothing under a note. Each session's hooks
remember (in the runtime directory) which notes they have shown and in which state, so a later
edit, or the same hook run again, does not repeat a note until its state changes; a new, cleared
or compacted session starts afresh. A session's hooks may run at once (parallel tool calls):
each reads, changes and replaces that record under a ``flock`` of the session's own lock file,
held only for the read and the write, never across the daemon call. They also remember each
edited file's content as they last saw it, and the hooks of all sessions which session last
reported a file: a file the edit did not change (``before.judge``: the same as before, as
another session's edit left it, or not written by this tool call) is not even sent to the
daemon. That shared record (``hooks/shared.files.json``) is read, changed and replaced under an
exclusive ``flock`` of ``hooks/shared.files.lock``: the hooks of sessions editing at the same moment
each add their report, none is lost.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from graphmem.agents import wire
from graphmem.agents.before import FRESH_WRITE_S, FileNow, Verdict, judge
from graphmem.agents.hookio import HookInput, parse_payload, render_output
from graphmem.paths import Paths, resolve_paths

try:  # (hashlib's blake2b is this one; importing hashlib also loads OpenSSL's ``_hashlib``: ~2 ms a hook)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

__all__ = ["KINDS", "HookArgs", "main", "parse_args"]

KINDS = ("session-start", "post-edit")
#: The largest payload read from stdin.
MAX_PAYLOAD = 4 * 1024 * 1024
#: Notes a session remembers having been shown (the daemon takes up to 2,000 in
#: ``EditContextRequest.already_shown``).
MAX_REMEMBERED = 2000
#: Files the hooks remember the last reported state of (per session, and across sessions).
MAX_FILES = 2000
#: How long the hooks keep another session's report of a file (``before.judge`` rule 2).
SHARED_FOR_S = 6 * FRESH_WRITE_S
#: How long a hook waits for another hook's turn at ``hooks/shared.files.json`` (it holds the lock for a
#: read and a write of a small file) before going on without it.
LOCK_WAIT_S = 1.0
#: A file larger than this is known by its size and modification time instead of its digest.
MAX_DIGEST_BYTES = 8 * 1024 * 1024
TOKEN_METADATA = "x-graphmem-token"
#: The session brief's default token budget (``--budget`` sets another).
SESSION_BUDGET = 400
#: The post-edit text's default token budget.
EDIT_BUDGET = 600


class HookArgs:
    """The hook's options (parsed by hand: argparse alone costs milliseconds here)."""

    def __init__(self) -> None:
        self.kind = ""
        self.client = "claude-code"
        self.home: str | None = None
        self.address: str | None = None
        self.budget = 0
        self.wait_ms = 500
        self.timeout = 3.0
        self.fresh_only = False


USAGE = (
    "usage: graphmem hook {session-start,post-edit} [--client NAME] [--home DIR] [--address ADDR] "
    "[--budget TOKENS] [--wait-ms MS] [--timeout SECONDS] [--fresh-only]\n"
    "Reads the client's hook payload (JSON) on stdin and prints what the agent should know, in the "
    "client's hook output format; prints nothing and exits 0 when there is nothing to say or the daemon "
    "is not running.\n"
)


def parse_args(argv: Sequence[str]) -> HookArgs | None:
    """The options, or None when they are not understood (the hook then stays silent)."""
    args = HookArgs()
    it = iter(argv)
    for word in it:
        if word in KINDS and not args.kind:
            args.kind = word
        elif word == "--fresh-only":
            args.fresh_only = True
        elif word in ("--client", "--home", "--address", "--budget", "--wait-ms", "--timeout"):
            value = next(it, None)
            if value is None:
                return None
            try:
                if word == "--client":
                    args.client = value
                elif word == "--home":
                    args.home = value
                elif word == "--address":
                    args.address = value
                elif word == "--budget":
                    args.budget = int(value)
                elif word == "--wait-ms":
                    args.wait_ms = max(0, min(int(value), 5000))
                else:
                    args.timeout = float(value)
            except ValueError:
                return None
        else:
            return None
    return args if args.kind else None


def _target(args: HookArgs, paths: Paths, env: Mapping[str, str]) -> str | None:
    """The daemon's gRPC target, or None when its socket does not exist (not running)."""
    address = args.address or env.get("GRAPHMEM_ADDRESS") or ""
    if address:
        if address.startswith("/"):
            return "unix:" + address
        return address.removeprefix("tcp://")
    return "unix:" + str(paths.socket) if paths.socket.exists() else None


Metadata = tuple[tuple[str, str], ...]


def _token(target: str, paths: Paths, env: Mapping[str, str]) -> Metadata:
    if target.startswith("unix:"):
        return ()
    secret = env.get("GRAPHMEM_TOKEN", "").strip()
    if not secret:
        try:
            secret = paths.token.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            secret = ""
    return ((TOKEN_METADATA, secret),) if secret else ()


def _memory_file(paths: Paths, session: str) -> Path | None:
    """Where a session's hooks remember what they showed (a name made of the session id)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", session)[:100]
    return paths.runtime_dir / "hooks" / f"{name}.json" if name else None


class Memory:
    """What a session's hooks remember (a JSON file per session id): the notes shown
    (``ID@STATE`` or ids) and each edited file's digest as the session last saw it. Hooks of
    one session may run at once (parallel edits): each change is made in ``updating``, which
    reads the file again and writes it under an exclusive ``flock`` of its ``.lock`` sibling,
    held only for that read and write (never across the daemon call)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.shown: list[str] = []
        self.files: dict[str, str] = {}
        self._read()

    def _read(self) -> None:
        data = _read_json(self.path)
        shown, files = data.get("shown", []), data.get("files", {})
        self.shown = [i for i in shown if isinstance(i, str)][-MAX_REMEMBERED:] if isinstance(shown, list) else []
        self.files = (
            {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(files, dict)
            else {}
        )

    @contextlib.contextmanager
    def updating(self) -> Iterator[Memory]:
        """The memory as it is now (read again under the session's lock), to change in the
        body; written (atomically) when the body ends, then the lock is released."""
        lock = self.path.with_suffix(".lock") if self.path is not None else None
        with _locked(lock) if lock is not None else contextlib.nullcontext():
            self._read()
            yield self
            self._save()

    def _save(self) -> None:
        files = dict(list(self.files.items())[-MAX_FILES:])
        _write_json(self.path, {"shown": self.shown[-MAX_REMEMBERED:], "files": files})


def _read_json(path: Path | None) -> dict[str, object]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path | None, data: object) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass


def _last_reported(paths: Paths) -> Path:
    """Which session's hook last reported each file, and in what state (all sessions). Its
    name holds a dot, which no session's own file name (``_memory_file``) can."""
    return paths.runtime_dir / "hooks" / "shared.files.json"


@contextlib.contextmanager
def _locked(path: Path, wait_s: float = LOCK_WAIT_S) -> Iterator[None]:
    """Hold an exclusive ``flock`` of ``path`` (created when missing) while the body runs: the
    hooks of several sessions take turns at a file they all read and replace. The kernel drops
    the lock when its process ends, however it ends. A hook never fails nor hangs for it: when
    the lock cannot be had within ``wait_s`` (a hook stopped while holding it) or the file
    cannot be opened, the body runs without it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.001)
            except OSError:
                break
        yield
    finally:
        os.close(fd)  # (and the lock with it)


def _file_now(path: str) -> FileNow:
    """The file's digest and modification time as it is now."""
    try:
        st = os.stat(path)
        if st.st_size > MAX_DIGEST_BYTES:
            return FileNow(path, f"stat:{st.st_size}:{st.st_mtime_ns}", st.st_mtime)
        with open(path, "rb") as f:
            digest = blake2b(f.read(), digest_size=16).hexdigest()
    except OSError:
        return FileNow(path, "", 0.0)
    return FileNow(path, digest, st.st_mtime)


def changed_files(hook: HookInput, memory: Memory, paths: Paths, now: float) -> list[str]:
    """The files ``hook`` names that its edit changed (``before.judge``), remembering each
    file's state for this session and as reported by it (for ``SHARED_FOR_S``: an older report
    is never needed, a file modified that long ago was not written by the tool call)."""
    shared = _last_reported(paths)
    now_files = [_file_now(p) for p in hook.files]  # (read before taking the lock: it is held briefly)
    with _locked(shared.with_suffix(".lock")):
        data = _read_json(shared).get("files", {})
        reports: dict[str, tuple[str, str, float]] = {}
        for k, v in (data.items() if isinstance(data, dict) else ()):
            if isinstance(v, list) and len(v) == 3 and isinstance(v[2], (int, float)) and v[2] > now - SHARED_FOR_S:
                reports[k] = (str(v[0]), str(v[1]), float(v[2]))
        last = {k: (digest, who) for k, (digest, who, _) in reports.items()}
        for f in now_files:
            reports.pop(f.path, None)  # most recent last
            reports[f.path] = (f.digest, hook.session, now)
        _write_json(shared, {"files": {k: list(v) for k, v in list(reports.items())[-MAX_FILES:]}})
    changed = []
    with memory.updating():
        for f in now_files:
            if judge(f, session=hook.session, mine=memory.files, last=last, now=now) is Verdict.CHANGED:
                changed.append(f.path)
            memory.files.pop(f.path, None)  # most recent last
            memory.files[f.path] = f.digest
    return changed


#: One unary call: (method name, encoded request, timeout) -> the encoded response.
Caller = Callable[[str, bytes, float], bytes]
SERVICE = "/graphmem.v1.RetrievalService/"


def _ask(args: HookArgs, hook: HookInput, call: Caller, shown: list[str]) -> tuple[str, list[str]]:
    """The daemon's text and what it shows to remember: ids (session start), ``ID@STATE``
    (post-edit: a note is not repeated until its state changes); raises when the call fails."""
    if args.kind == "session-start":
        request = wire.session_brief_request(hook.cwd, args.budget or SESSION_BUDGET, args.fresh_only)
        brief = wire.decode(call("SessionBrief", request, args.timeout))
        ids = wire.strings(brief, 2)  # SessionBriefResponse.observation_ids
        if not ids and not brief.get(250):  # nothing shown, nothing left out (left_out = 250)
            return "", []
        return "".join(wire.strings(brief, 1)), ids
    if not hook.files:
        return "", []
    budget = args.budget or EDIT_BUDGET
    request = wire.edit_context_request(hook.cwd, hook.files, budget, args.wait_ms, args.fresh_only, shown)
    edit = wire.decode(call("EditContext", request, args.timeout + args.wait_ms / 1000))
    return "".join(wire.strings(edit, 1)), wire.strings(edit, 8)  # EditContextResponse.text, shown_states


def _ask_daemon(
    args: HookArgs, hook: HookInput, target: str, metadata: Metadata, shown: list[str]
) -> tuple[str, list[str]]:
    """:func:`_ask` over the right transport: the local Unix socket with ``h2`` (``h2call``: a
    third of grpc's start-up cost), any other address (TCP, perhaps TLS) with grpc."""
    if target.startswith("unix:"):
        from graphmem.agents import h2call

        def over_h2(method: str, request: bytes, timeout: float) -> bytes:
            return h2call.unary(target.removeprefix("unix:"), SERVICE + method, request, timeout, metadata)

        return _ask(args, hook, over_h2, shown)
    import grpc

    with grpc.insecure_channel(target, options=[("grpc.enable_http_proxy", 0)]) as channel:

        def over_grpc(method: str, request: bytes, timeout: float) -> bytes:
            stub = channel.unary_unary(SERVICE + method, request_serializer=None, response_deserializer=None)
            response: bytes = stub(request, timeout=timeout, metadata=metadata)
            return response

        return _ask(args, hook, over_grpc, shown)


def _has_own_hooks(client: str, cwd: str, env: Mapping[str, str]) -> bool:
    """Whether ``client`` has graphmem's hooks in its own hooks file (project or user): then the
    copy it also runs from Claude Code's settings stays silent, so it hears graphmem once."""
    from graphmem.agents.table import CLIENTS, resolve_path

    spec = CLIENTS[client].hooks
    if spec is None:
        return False
    for path in (Path(cwd) / spec.project, resolve_path(spec.user, env, sys.platform)):
        try:
            if " hook " in path.read_text(encoding="utf-8"):
                return True
        except (OSError, UnicodeDecodeError):
            continue
    return False


def run(args: HookArgs, raw: str, env: Mapping[str, str], cwd: str, started: float | None = None) -> str:
    """The hook's output for payload ``raw`` ("" when there is nothing to say); ``started``: when
    the hook started (``time.time()``; now by default)."""
    started = time.time() if started is None else started
    hook = parse_payload(raw, args.kind, args.client, env, cwd)
    if hook.client == "windsurf" or (args.kind == "post-edit" and not hook.files):
        return ""
    sniffed = hook.client != args.client and hook.client in ("cursor", "vscode")
    if sniffed and _has_own_hooks(hook.client, hook.cwd, env):
        return ""
    paths = resolve_paths(args.home, env)
    target = _target(args, paths, env)
    if target is None:
        return ""
    memory = Memory(_memory_file(paths, hook.session))
    fresh_session = args.kind == "session-start" and hook.source != "resume"
    if args.kind == "post-edit":
        hook = hook._replace(files=tuple(changed_files(hook, memory, paths, started)))
        if not hook.files:  # the edit changed none of them: nothing to say, no need to ask
            return ""
    shown = [] if fresh_session else list(memory.shown)
    text, ids = _ask_daemon(args, hook, target, _token(target, paths, env), shown)
    if ids or fresh_session:
        with memory.updating():  # what the session's other hooks remembered meanwhile is kept
            memory.shown = list(dict.fromkeys([*([] if fresh_session else memory.shown), *ids]))
    return render_output(hook.client, hook.event, text)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one hook; always 0 (a hook must never block or fail the agent)."""
    started = time.time()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:
        argv = argv[1:]
    if any(a in ("-h", "--help") for a in argv):
        sys.stdout.write(USAGE)
        return 0
    args = parse_args(argv)
    if args is None:
        sys.stderr.write(USAGE)
        return 0
    try:
        raw = sys.stdin.read(MAX_PAYLOAD) if not sys.stdin.isatty() else ""
        out = run(args, raw, os.environ, os.getcwd(), started)
    except Exception:  # noqa: BLE001 - the daemon is down, slow or unhappy: say nothing, never fail the agent
        return 0
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    return 0
