"""**Pure**: where "open in the editor" goes.

A ``vscode://file/<absolute path>:<line>`` link opens VS Code (and its forks that register
the scheme) from the browser. ``$EDITOR`` cannot be opened by a browser, so the page asks its
own server to run it: ``editor_argv`` is the command line (``+LINE`` for the editors that
take it: vi, vim, nvim, nano, emacs, micro, kak, hx; ``-g path:line`` for VS Code's CLI;
the path alone otherwise).
"""

from __future__ import annotations

import posixpath
import shlex
from pathlib import PurePosixPath
from urllib.parse import quote

__all__ = ["editor_argv", "vscode_url"]

_PLUS_LINE = frozenset(
    {"vi", "vim", "nvim", "gvim", "nano", "emacs", "emacsclient", "micro", "kak", "hx", "helix", "mg"}
)
_GOTO = frozenset({"code", "codium", "code-insiders", "cursor", "windsurf"})


def vscode_url(root: str, rel_path: str, line: int) -> str:
    """The ``vscode://file/...:line`` link of a repository file."""
    full = posixpath.join(root, rel_path)
    return f"vscode://file{quote(full)}:{max(line, 1)}"


def editor_argv(editor: str, path: str, line: int) -> list[str]:
    """The command line that opens ``path`` at ``line`` in ``editor`` (``$EDITOR``'s value,
    which may carry its own arguments); [] when no editor is set."""
    words = shlex.split(editor) if editor.strip() else []
    if not words:
        return []
    name = PurePosixPath(words[0]).name
    line = max(line, 1)
    if name in _PLUS_LINE:
        return [*words, f"+{line}", path]
    if name in _GOTO:
        return [*words, "-g", f"{path}:{line}"]
    return [*words, path]
