"""PURE: the file changes ``graphmem setup CLIENT`` makes, as old text -> new text per file.

``targets`` says which files a client uses at a scope (MCP configuration, hooks, instruction
file); ``plan`` computes each file's new text from its current one (None: the file does not
exist), composing several edits of one file (Gemini keeps servers and hooks in one settings
file; Codex's config.toml also gets the hooks feature flag). A file whose new text equals its
old one is not a change: running ``setup`` twice changes nothing. ``unplan`` takes graphmem's
entries out again, leaving every other entry alone (``--undo`` of a file edited since).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graphmem.agents import instructions, jsonc, tomledit
from graphmem.agents.invocation import Invocation
from graphmem.agents.table import (
    SERVER_NAME,
    ClientSpec,
    Format,
    HookSpec,
    Scope,
    hook_command,
    hook_item,
    is_our_hook,
    mcp_entry,
    resolve_path,
)
from graphmem.errors import FailedPrecondition

__all__ = ["Change", "Options", "Targets", "diff", "plan", "targets", "unplan"]


@dataclass(frozen=True, slots=True)
class Targets:
    """The files a client's setup uses: MCP configuration, hooks (None: none) and instructions;
    ``mcp_scope``: the scope the MCP file is actually at (Windsurf has no project file)."""

    mcp: Path
    mcp_scope: Scope
    hooks: Path | None
    instructions: Path | None


@dataclass(frozen=True, slots=True)
class Options:
    """What to write: how the MCP file and the hooks file each name graphmem (by the scope each
    file is at: ``invocation.invocation``), and which parts to install."""

    mcp_run: Invocation
    hooks_run: Invocation
    hooks: bool = True
    instructions: bool = False


@dataclass(frozen=True, slots=True)
class Change:
    """One file's change: ``old``/``new`` text (None: the file does not exist / is removed)."""

    path: Path
    old: str | None
    new: str | None

    @property
    def changed(self) -> bool:
        """Whether the file's text changes."""
        return self.old != self.new


def targets(spec: ClientSpec, scope: Scope, root: Path, env: Mapping[str, str], platform: str) -> Targets:
    """The files ``spec``'s setup uses at ``scope`` for the repository at ``root``."""
    if scope is Scope.PROJECT and spec.mcp.project is not None:
        mcp, mcp_scope = root / spec.mcp.project, Scope.PROJECT
    else:
        mcp, mcp_scope = resolve_path(spec.mcp.user, env, platform), Scope.USER
    hooks = None
    if spec.hooks is not None:
        hooks = root / spec.hooks.project if scope is Scope.PROJECT else resolve_path(spec.hooks.user, env, platform)
    return Targets(mcp, mcp_scope, hooks, root / spec.instructions)


def _edit_hooks(text: str, spec: HookSpec, client_name: str, opts: Options, install: bool) -> str:
    for key, value in spec.top:
        if install:
            text = jsonc.set_member(text, (), key, value) if key not in jsonc.value_of(text) else text
    for event in spec.events:
        path = ("hooks", event.event)
        if install:
            line = hook_command(opts.hooks_run.command, event.kind, client_name, opts.hooks_run.home)
            text = jsonc.upsert_item(text, path, is_our_hook, hook_item(spec, event, line))
        else:
            text = jsonc.remove_items(text, path, is_our_hook)
            if text.strip() and jsonc.value_of(text).get("hooks", {}).get(event.event) == []:
                text = jsonc.remove_member(text, ("hooks",), event.event)
    if not install and text.strip() and jsonc.value_of(text).get("hooks") == {}:
        text = jsonc.remove_member(text, (), "hooks")
    return text


def _edit_mcp(text: str, spec: ClientSpec, opts: Options, install: bool) -> str:
    m = spec.mcp
    entry = mcp_entry(m, (*opts.mcp_run.command, "mcp"), opts.mcp_run.env)
    if m.format is Format.TOML:
        if install:
            text = tomledit.set_table(text, m.servers_key, SERVER_NAME, entry)
            if spec.hooks_flag and opts.hooks:
                *path, key = spec.hooks_flag
                text = tomledit.set_default(text, path, key, True, unless=spec.hooks_flag_unless)
            return text
        return tomledit.remove_table(text, m.servers_key, SERVER_NAME)
    if install:
        return jsonc.set_member(text, m.servers_key, SERVER_NAME, entry)
    return jsonc.remove_member(text, m.servers_key, SERVER_NAME)


def plan(
    spec: ClientSpec, where: Targets, opts: Options, read: Callable[[Path], str | None]
) -> list[Change]:
    """The changes of ``setup``: the MCP entry; the hooks (``opts.hooks``), or taking graphmem's
    hooks out (``--no-hooks``); the instruction block (``opts.instructions``). Files in order of
    first use; unchanged ones included (``Change.changed`` is False)."""
    texts: dict[Path, str | None] = {}

    def current(path: Path) -> str:
        if path not in texts:
            texts[path] = read(path)
        return texts[path] or ""

    with _in(where.mcp):
        texts[where.mcp] = _edit_mcp(current(where.mcp), spec, opts, install=True)
    if spec.hooks is not None and where.hooks is not None:
        before = current(where.hooks)
        if opts.hooks or before.strip():
            with _in(where.hooks):
                texts[where.hooks] = _edit_hooks(before, spec.hooks, spec.name, opts, install=opts.hooks) or None
    if opts.instructions and where.instructions is not None:
        texts[where.instructions] = instructions.upsert(current(where.instructions) or None)
    return [Change(p, read(p), new) for p, new in texts.items()]


@contextmanager
def _in(path: Path) -> Iterator[None]:
    """A file that is not what its client reads (bad JSON/TOML) is reported, never overwritten."""
    try:
        yield
    except (jsonc.JsonSyntaxError, tomledit.TomlSyntaxError) as exc:
        raise FailedPrecondition(
            f"{path} cannot be read ({exc}); fix it or move it away, then run setup again"
        ) from exc


def unplan(
    spec: ClientSpec, where: Targets, opts: Options, read: Callable[[Path], str | None], paths: Sequence[Path]
) -> list[Change]:
    """``paths`` (of ``where``) without graphmem's entries, every other entry left alone."""
    out: list[Change] = []
    for path in paths:
        old = read(path)
        if old is None:
            continue
        with _in(path):
            new = _unplan_one(spec, where, opts, path, old)
        out.append(Change(path, old, new))
    return out


def _unplan_one(spec: ClientSpec, where: Targets, opts: Options, path: Path, text: str) -> str:
    """One file's text without graphmem's entries."""
    if path == where.mcp:
        text = _edit_mcp(text, spec, opts, install=False)
    if spec.hooks is not None and path == where.hooks:
        text = _edit_hooks(text, spec.hooks, spec.name, opts, install=False)
    if path == where.instructions:
        text = instructions.remove(text)
    return text


def diff(change: Change) -> str:
    """The change as a unified diff (``/dev/null`` for a file created or removed)."""
    old = (change.old or "").splitlines(keepends=True)
    new = (change.new or "").splitlines(keepends=True)
    a = str(change.path) if change.old is not None else "/dev/null"
    b = str(change.path) if change.new is not None else "/dev/null"
    lines = list(difflib.unified_diff(old, new, a, b))
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
