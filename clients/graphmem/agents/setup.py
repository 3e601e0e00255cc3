"""``graphmem setup CLIENT``: the file-writing shell around ``plan`` (and ``--undo``).

Writes each changed file atomically, backing the original up first (``state.Manifest``), then
registers the repository with the daemon (starting it, or installing the login service when
asked). ``--dry-run`` prints the unified diff of every file instead and changes nothing.
``--undo`` restores each file the client's setup touched byte for byte, or, when the file was
edited since, takes out only graphmem's entries.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from graphmem.agents.invocation import Invocation, Setting, invocation, parse_command
from graphmem.agents.plan import Change, Options, Targets, diff, plan, targets, unplan
from graphmem.agents.state import Manifest, read_text, sha256, write_atomically
from graphmem.agents.table import ClientSpec, Scope, client, resolve_path
from graphmem.errors import DaemonNotRunning, FailedPrecondition, InvalidArgument
from graphmem.paths import resolve_paths

__all__ = ["SetupRequest", "graphmem_command", "repository_root", "run_setup", "run_undo"]


@dataclass(frozen=True, slots=True)
class SetupRequest:
    """One ``graphmem setup`` invocation, resolved: ``instructions`` None means ask on a TTY."""

    client: str
    scope: Scope
    root: Path
    home: str | None
    address: str | None
    dry_run: bool = False
    hooks: bool = True
    instructions: bool | None = None
    login_service: bool = False
    register: bool = True
    explicit_root: bool = False  # --repo named it (else: the git work tree at hand, or the directory)
    command: str | None = None  # --command: the launcher the files name (else: graphmem on PATH / this one)
    home_flag: str | None = None  # --home as given on the command line (project files carry only that)
    address_flag: str | None = None  # --address as given on the command line


def graphmem_command(argv0: str | None = None, executable: str | None = None) -> tuple[str, ...]:
    """The absolute command of the running graphmem: its script, else the ``graphmem`` beside
    this Python, else ``python -m graphmem``."""
    first = Path(argv0 if argv0 is not None else sys.argv[0])
    python = Path(executable or sys.executable)
    if first.name.startswith("graphmem") and first.suffix != ".py" and first.is_file() and os.access(first, os.X_OK):
        return (str(first.absolute()),)
    sibling = python.parent / "graphmem"
    if sibling.is_file() and os.access(sibling, os.X_OK):
        return (str(sibling.absolute()),)
    return (str(python.absolute()), "-m", "graphmem")


def repository_root(start: Path) -> Path:
    """The git work tree containing ``start`` (its top), else ``start`` itself."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start


def _invocation(req: SetupRequest, scope: Scope) -> Invocation:
    """How a file at ``scope`` names graphmem for this request."""
    try:
        chosen = parse_command(req.command) if req.command is not None else None
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from None

    def absolute(home: str | None) -> str | None:
        return str(Path(home).expanduser().resolve()) if home else None

    home = Setting(absolute(req.home_flag), absolute(req.home))
    return invocation(scope, chosen, graphmem_command(), home, Setting(req.address_flag, req.address))


def _options(req: SetupRequest, where: Targets, instructions: bool) -> Options:
    return Options(_invocation(req, where.mcp_scope), _invocation(req, req.scope), hooks=req.hooks,
                   instructions=instructions)


def _user_files(spec: ClientSpec, req: SetupRequest, where: Targets) -> bool:
    """Whether this setup writes any of the client's user-scope files."""
    return where.mcp_scope is Scope.USER or (req.scope is Scope.USER and spec.hooks is not None)


def _require_client_home(spec: ClientSpec, req: SetupRequest, where: Targets, env: Mapping[str, str]) -> None:
    """A client whose folder does not exist yet gets none of its files (not the hooks without
    the server): the user starts it once, or adds the server with the client's own command."""
    if not _user_files(spec, req, where):
        return
    folder = resolve_path(spec.user_home, env, sys.platform)
    if folder.is_dir():
        return
    message = (f"{folder} does not exist: {spec.title} has not been started as this user yet, so setup wrote "
               f"nothing. Start {spec.title} once (it makes that folder), then run this again")
    if spec.mcp.command_line:
        exe = shlex.join(_invocation(req, where.mcp_scope).command)
        message += f"; or add only the server: {spec.mcp.command_line.format(exe=exe, scope=where.mcp_scope.value)}"
    raise FailedPrecondition(message)


def _on_path_note(spec: ClientSpec, req: SetupRequest, where: Targets, opts: Options,
                  env: Mapping[str, str]) -> str:
    """A line when the command the project files name is not what this shell finds on PATH."""
    names = (where.mcp_scope is Scope.PROJECT) or (spec.hooks is not None and req.hooks)
    exe = opts.hooks_run.command[0] if opts.hooks_run.command else ""
    if req.scope is not Scope.PROJECT or not names or not exe or os.sep in exe:
        return ""
    found = shutil.which(exe, path=env.get("PATH"))
    if found is None:
        return (f"note: `{exe}` is not on this shell's PATH, and the files name it so that every machine finds "
                f"its own: put graphmem on PATH (pipx install graphmem, or activate its virtualenv) before "
                f"starting the client, or name a launcher with --command PATH\n")
    running = graphmem_command()
    if len(running) == 1 and Path(found).resolve() != Path(running[0]).resolve():
        return f"note: `{exe}` on PATH here is {found}, not the graphmem running setup ({running[0]})\n"
    return ""


def _ask(question: str, out: TextIO) -> bool:
    if not sys.stdin.isatty():
        return False
    out.write(f"{question} [Y/n] ")
    out.flush()
    return input().strip().lower() in ("", "y", "yes")


def _show(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _mkdirs(path: Path) -> list[Path]:
    """Create ``path``'s missing parent directories; returns those created (outermost first)."""
    missing = [d for d in reversed(path.parents) if not d.exists()]
    for d in missing:
        d.mkdir()
    return missing


def _apply(changes: list[Change], manifest: Manifest, owner: str) -> None:
    for c in changes:
        if not c.changed:
            manifest.own(c.path, owner)  # another client's setup wrote what this one wants there too
            continue
        before = c.path.read_bytes() if c.old is not None else None
        if c.new is None:
            c.path.unlink(missing_ok=True)
            continue
        made = _mkdirs(c.path)
        data = c.new.encode("utf-8")
        write_atomically(c.path, data)
        manifest.record(c.path, before, data, owner, made)
    manifest.save()


def _register(req: SetupRequest, out: TextIO) -> None:
    """Register the repository with the running daemon; when none runs, start one, or install
    the login service (``graphmem daemon install``) when asked."""
    from graphmem.client import GraphMem

    running = False
    try:
        with GraphMem(req.address, home=req.home, timeout=10.0) as gm:
            repo = gm.add_repo(req.root)
        running = True
        out.write(f"registered {repo.root} with the daemon as {repo.id} ({repo.state.value})\n")
    except DaemonNotRunning:
        if not req.login_service:
            from graphmem.daemon_ctl import start_daemon

            pid = start_daemon(req.home, [str(req.root)])
            out.write(f"started graphmemd (pid {pid}, socket {resolve_paths(req.home).socket}) watching {req.root}\n")
    if req.login_service:
        from graphmem.autostart import install

        done = install(req.home, [str(req.root)])
        out.write(f"installed the login service {done.path} (it registers {req.root})\n")
        for cmd in done.to_run:
            out.write(f"  run: {cmd}\n")
        if running and done.ran:
            out.write("  a daemon started by hand is still running, so the service's own start exited 3: hand over "
                      "with graphmem daemon stop, then start the service\n")


def _next_steps(spec: ClientSpec, where: Targets, req: SetupRequest, out: TextIO) -> None:
    if spec.hooks is None:
        out.write(f"hooks: none ({spec.no_hooks_reason})\n")
    elif req.hooks:
        out.write(
            "hooks: at session start the repository's brief is added to the agent's context; after it "
            "edits a file, the notes on that file and the code it touches, calling out the ones the edit "
            f"made stale or suspect. Turn them off: graphmem setup {spec.name} --no-hooks\n"
        )
    for step in spec.next_steps:
        out.write(f"next: {step}\n")
    flag = " --user" if req.scope is Scope.USER else ""
    out.write(f"undo everything: graphmem setup {spec.name}{flag} --undo\n")


def run_setup(req: SetupRequest, out: TextIO, env: Mapping[str, str] | None = None) -> int:
    """``graphmem setup``: plan, then print the diffs (``dry_run``) or write, register and report."""
    env = os.environ if env is None else env
    spec = client(req.client)
    where = targets(spec, req.scope, req.root, env, sys.platform)
    _require_client_home(spec, req, where, env)
    wants = req.instructions
    if wants is None and not req.dry_run:
        wants = _ask(f"Add graphmem's note-taking instructions to {where.instructions}?", out)
    opts = _options(req, where, bool(wants))
    changes = plan(spec, where, opts, read_text)
    label = f"{spec.title}, {req.scope.value} scope"
    if req.dry_run:
        out.write(f"graphmem setup {spec.name} ({label}): dry run, nothing is written\n")
        for c in changes:
            out.write(diff(c) if c.changed else f"unchanged: {c.path}\n")
        if req.register:
            out.write(f"would register {req.root} with the daemon (starting it if needed)\n")
        out.write(_on_path_note(spec, req, where, opts, env))
        return 0
    _apply(changes, Manifest(resolve_paths(req.home).state_dir), spec.name)
    out.write(f"graphmem setup {spec.name} ({label})\n")
    for c in changes:
        out.write(f"  {'wrote    ' if c.changed else 'unchanged'} {_show(req.root, c.path)}\n")
    if where.mcp_scope is not req.scope:
        out.write(f"  ({spec.title} has no project-level MCP file: the server is set for the user)\n")
    out.write(_on_path_note(spec, req, where, opts, env))
    if req.register and not req.explicit_root and not (req.root / ".git").exists():
        out.write(f"{req.root} is not a git work tree: not registered with the daemon (name the repository "
                  "with --repo PATH, or: graphmem repo add PATH)\n")
    elif req.register:
        _register(req, out)
    if req.scope is Scope.PROJECT:
        out.write(_commit_note(req.root, [c.path for c in changes]))
    _next_steps(spec, where, req, out)
    return 0


def _commit_note(root: Path, paths: list[Path]) -> str:
    """The line saying which of the project files ``paths`` git does not track yet ("" when it
    tracks them all, or cannot say): a worktree (``claude --worktree``, an agent's) and a
    teammate's clone hold only committed files, so graphmem is not set up there until they are."""
    mine = [p.relative_to(root).as_posix() for p in paths if p.is_file() and p.is_relative_to(root)]
    if not mine or not (root / ".git").exists() or shutil.which("git") is None:
        return ""
    try:
        done = subprocess.run(["git", "--no-optional-locks", "ls-files", "--", *mine], cwd=root, capture_output=True,
                              text=True, timeout=10, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if done.returncode != 0:
        return ""
    untracked = [m for m in mine if m not in set(done.stdout.splitlines())]
    if not untracked:
        return ""
    return (f"commit: git add {' '.join(shlex.quote(u) for u in untracked)} (a worktree, such as an agent's "
            "from claude --worktree, and a teammate's clone hold only committed files)\n")


def _undo_changes(spec: ClientSpec, where: Targets, manifest: Manifest, opts: Options) -> list[Change]:
    """What ``--undo`` does to each file the client's setup touched."""
    changes: list[Change] = []
    paths = [p for p in (where.mcp, where.hooks, where.instructions) if p is not None]
    for path in dict.fromkeys(paths):
        rec = manifest.files.get(str(path))
        if rec is None or spec.name not in rec.owners:
            continue
        current = read_text(path)
        others = [o for o in rec.owners if o != spec.name]
        if others and path == where.instructions:
            changes.append(Change(path, current, current))  # still wanted by another client
        elif not others and sha256(current.encode() if current is not None else None) == rec.written:
            original = manifest.original(path)
            changes.append(Change(path, current, original.decode("utf-8") if original is not None else None))
        else:
            changes.extend(unplan(spec, where, opts, read_text, [path]))
    return changes


def run_undo(req: SetupRequest, out: TextIO, env: Mapping[str, str] | None = None) -> int:
    """``graphmem setup CLIENT --undo``: restore what this client's setup changed."""
    env = os.environ if env is None else env
    spec = client(req.client)
    where = targets(spec, req.scope, req.root, env, sys.platform)
    manifest = Manifest(resolve_paths(req.home).state_dir)
    changes = _undo_changes(spec, where, manifest, _options(req, where, False))
    if not changes:
        out.write(f"graphmem setup {spec.name} --undo: nothing to undo ({req.scope.value} scope)\n")
        return 0
    if req.dry_run:
        for c in changes:
            out.write(diff(c) if c.changed else f"unchanged: {c.path}\n")
        return 0
    made: list[Path] = []
    for c in changes:
        made += _restore(c, manifest, spec.name)
        out.write(f"  {'restored ' if c.changed else 'kept     '} {_show(req.root, c.path)}\n")
    for d in sorted(set(made), key=lambda d: len(d.parts), reverse=True):  # after every file: two may share one
        _rmdir_if_empty(d)
    manifest.save()
    return 0


def _restore(c: Change, manifest: Manifest, owner: str) -> list[Path]:
    """Restore one file; returns the directories setup made for it, once it is removed."""
    rec = manifest.files[str(c.path)]
    rec.owners = [o for o in rec.owners if o != owner]
    made: list[Path] = []
    if c.changed:
        if c.new is None:
            c.path.unlink(missing_ok=True)
            made = [Path(d) for d in rec.created_dirs]
        else:
            write_atomically(c.path, c.new.encode("utf-8"))
    if not rec.owners:
        manifest.forget(c.path)
    return made


def _rmdir_if_empty(d: Path) -> None:
    with contextlib.suppress(OSError):
        d.rmdir()
