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
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from graphmem.agents.plan import Change, Options, Targets, diff, plan, targets, unplan
from graphmem.agents.state import Manifest, read_text, sha256, write_atomically
from graphmem.agents.table import ClientSpec, Scope, client
from graphmem.errors import DaemonNotRunning
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


def _options(req: SetupRequest, instructions: bool) -> Options:
    env = {}
    if req.home:
        env["GRAPHMEM_HOME"] = str(Path(req.home).expanduser().resolve())
    if req.address:
        env["GRAPHMEM_ADDRESS"] = req.address
    home = env.get("GRAPHMEM_HOME")
    return Options(graphmem_command(), env, home, hooks=req.hooks, instructions=instructions)


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
    wants = req.instructions
    if wants is None and not req.dry_run:
        wants = _ask(f"Add graphmem's note-taking instructions to {where.instructions}?", out)
    opts = _options(req, bool(wants))
    by_command = where.mcp_scope is Scope.USER and not where.mcp.parent.exists() and spec.mcp.command_line
    changes = plan(spec, where, opts, read_text)
    if by_command:
        changes = [c for c in changes if c.path != where.mcp or c.path == where.hooks]  # the command does it
    label = f"{spec.title}, {req.scope.value} scope"
    if req.dry_run:
        out.write(f"graphmem setup {spec.name} ({label}): dry run, nothing is written\n")
        for c in changes:
            out.write(diff(c) if c.changed else f"unchanged: {c.path}\n")
        if req.register:
            out.write(f"would register {req.root} with the daemon (starting it if needed)\n")
        return 0
    _apply(changes, Manifest(resolve_paths(req.home).state_dir), spec.name)
    out.write(f"graphmem setup {spec.name} ({label})\n")
    for c in changes:
        out.write(f"  {'wrote    ' if c.changed else 'unchanged'} {_show(req.root, c.path)}\n")
    if where.mcp_scope is not req.scope:
        out.write(f"  ({spec.title} has no project-level MCP file: the server is set for the user)\n")
    if by_command:
        exe = " ".join(opts.command)
        out.write(f"  {where.mcp.parent} does not exist: add the MCP server with\n    "
                  f"{spec.mcp.command_line.format(exe=exe, scope=where.mcp_scope.value)}\n")
    if req.register and not req.explicit_root and not (req.root / ".git").exists():
        out.write(f"{req.root} is not a git work tree: not registered with the daemon (name the repository "
                  "with --repo PATH, or: graphmem repo add PATH)\n")
    elif req.register:
        _register(req, out)
    _next_steps(spec, where, req, out)
    return 0


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
    changes = _undo_changes(spec, where, manifest, _options(req, False))
    if not changes:
        out.write(f"graphmem setup {spec.name} --undo: nothing to undo ({req.scope.value} scope)\n")
        return 0
    if req.dry_run:
        for c in changes:
            out.write(diff(c) if c.changed else f"unchanged: {c.path}\n")
        return 0
    for c in changes:
        _restore(c, manifest, spec.name)
        out.write(f"  {'restored ' if c.changed else 'kept     '} {_show(req.root, c.path)}\n")
    manifest.save()
    return 0


def _restore(c: Change, manifest: Manifest, owner: str) -> None:
    rec = manifest.files[str(c.path)]
    rec.owners = [o for o in rec.owners if o != owner]
    if c.changed:
        if c.new is None:
            c.path.unlink(missing_ok=True)
            for d in reversed(rec.created_dirs):
                _rmdir_if_empty(Path(d))
        else:
            write_atomically(c.path, c.new.encode("utf-8"))
    if not rec.owners:
        manifest.forget(c.path)


def _rmdir_if_empty(d: Path) -> None:
    with contextlib.suppress(OSError):
        d.rmdir()
