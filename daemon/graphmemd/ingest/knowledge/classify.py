"""Which written references may name code, and what they name (pure).

The structure (code spans, roles, links) comes from the real parsers; this module only looks
at the text of one span: ``hash_password()`` names ``hash_password``, ``@app.route`` names
``app.route``, ``AuthService#login`` names ``AuthService.login``, ``src/app.py:42`` names a
file and a line, ``pip install attrs`` names nothing. Whether a name is code is decided by
resolution against the graph; this only rules out what cannot be a name or a path.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from typing import Final
from urllib.parse import unquote

from graphmemd.ingest.knowledge.model import RefKind, TargetKind, TextRef

_IDENT: Final = r"[A-Za-z_$][\w$]*"
_NAME: Final = re.compile(rf"{_IDENT}(?:(?:\.|::|#|->){_IDENT})*")
#: a trailing call: ``f()``, ``f(x, y=1)`` (no nested parentheses)
_CALL: Final = re.compile(r"\([^()]*\)$")
_PATH_CHARS: Final = re.compile(r"[\w.\-/@+~]+")
_LINE_SUFFIX: Final = re.compile(r"(?::(\d+)(?::\d+)?|#L(\d+)(?:C\d+)?(?:-L?\d+(?:C\d+)?)?)$")
_DUNDER: Final = re.compile(r"__\w+__")
#: a member written relative to its section: ``.status_code``, ``def .aiter_lines()``, ``async def .aclose()``
_RELATIVE: Final = re.compile(rf"(?:(?:async\s+)?def\s+|property\s+)?\.({_IDENT})(?:\([^()]*\))?(?:\s*->.*)?")
_FRAGMENT_LINE: Final = re.compile(r"^L(\d+)(?:C\d+)?(?:-L?\d+(?:C\d+)?)?$")
#: file extensions of the languages graphmem parses, and of knowledge files (a link to one)
CODE_EXTENSIONS: Final = frozenset(
    {".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".go", ".rs", ".java"}
)
_DOC_EXTENSIONS: Final = frozenset({".md", ".mdx", ".mdc", ".rst", ".txt", ".toml", ".json", ".yaml", ".yml", ".cfg"})
#: words that are never a reference to the repository's code
NOT_CODE: Final = frozenset(
    {
        "True", "False", "None", "null", "nil", "undefined", "true", "false", "self", "cls", "this",
        "super", "NaN", "Infinity", "int", "str", "bytes", "float", "bool", "dict", "list", "tuple",
        "set", "object", "type", "string", "number", "any", "void", "error", "len", "print",
    }
)  # fmt: skip


def is_path_like(text: str) -> bool:
    """Whether ``text`` is written like a file path (a ``/`` or a known extension, no spaces)."""
    if not text or " " in text or not _PATH_CHARS.fullmatch(text):
        return False
    ext = posixpath.splitext(text)[1].lower()
    return ext in CODE_EXTENSIONS or ext in _DOC_EXTENSIONS or ("/" in text and not text.startswith("//"))


def split_line(text: str) -> tuple[str, int]:
    """``src/app.py:42`` / ``src/app.py#L42`` -> (``src/app.py``, 42); no line: 0."""
    m = _LINE_SUFFIX.search(text)
    if m is None:
        return text, 0
    return text[: m.start()], int(m.group(1) or m.group(2))


def classify_code(text: str) -> tuple[TargetKind, str, int] | None:
    """What an inline code span may name: (kind, target, line), or None when it cannot be a
    name or a path (a command, an expression, a literal)."""
    s = text.strip()
    if not s or len(s) > 300 or "\n" in s:
        return None
    path, line = split_line(s)
    if "::" in path and is_path_like(path.split("::", 1)[0]):  # graphmem's own ref form
        return TargetKind.SYMBOL, path, 0
    if is_path_like(path) and not _NAME.fullmatch(path):
        return TargetKind.PATH, path.removeprefix("./"), line
    relative = _RELATIVE.fullmatch(s)
    if relative is not None:  # ``.member`` / ``def .member()``: a member of the section's class
        return TargetKind.SYMBOL, "." + relative.group(1), 0
    name = clean_name(s)
    if name is None:
        return None
    if "." not in name and (name in NOT_CODE or len(name) < 3 or _DUNDER.fullmatch(name)):
        return None  # a bare dunder (``__repr__``) is Python's protocol, not one symbol of the code
    return TargetKind.SYMBOL, name, 0


def clean_name(text: str) -> str | None:
    """A written name reduced to a dotted name: ``@app.route`` -> ``app.route``,
    ``hash_password(pw)`` -> ``hash_password``, ``AuthService#login`` and
    ``AuthService::login`` -> ``AuthService.login``, ``~attr.define`` -> ``attr.define``;
    None when it is not a name at all."""
    s = text.strip().lstrip("@~!").removeprefix("new ")
    s = _CALL.sub("", s).rstrip("()")
    if not _NAME.fullmatch(s):
        return None
    if s.startswith("$") and len(s) > 1 and "." not in s:  # a shell variable
        return None
    for sep in ("::", "#", "->"):
        s = s.replace(sep, ".")
    return s


def in_section(ref: TextRef, module: str, scope: str, listed: bool) -> TextRef:
    """``ref`` with the ``currentmodule`` in force, and the class or module its section names
    where a name is read relative to it: ``.member`` anywhere, a bare name written in a code
    span in a list or a table (``listed``)."""
    bare = listed and "." not in ref.target and ref.kind is RefKind.CODE
    in_scope = bool(scope) and ref.target_kind is TargetKind.SYMBOL and (ref.target.startswith(".") or bare)
    if not module and not in_scope:
        return ref
    return replace(ref, module=module or ref.module, scope=scope if in_scope else ref.scope)


def link_target(href: str, doc_path: str) -> tuple[str, int] | None:
    """The repository path (relative to the root) and line a link points at, or None for a
    link that leaves the repository (a URL, a mail address, a fragment of the same page)."""
    href = href.strip()
    if not href or href.startswith("#") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", href) or href.startswith("//"):
        return None
    target, _, fragment = href.partition("#")
    target = unquote(target.split("?", 1)[0])
    m = _FRAGMENT_LINE.match(fragment)
    line = int(m.group(1)) if m else 0
    if target.startswith("/"):
        rel = posixpath.normpath(target.lstrip("/"))
    else:
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(doc_path), target))
    if rel.startswith("../") or rel == ".." or rel == ".":
        return None
    return rel, line


@dataclass(frozen=True, slots=True)
class WrittenCall:
    """The arguments a call written in a document passes (``httpx.get(url, proxies=...)``):
    how many positionally, which keywords, and whether it leaves more open (``...``,
    ``*args`` or ``**kwargs`` written among them)."""

    positional: int
    keywords: tuple[str, ...]
    more_positional: bool = False
    more_keywords: bool = False


_KEYWORD_ARG: Final = re.compile(rf"^({_IDENT})\s*=(?!=)")
_PAIRS: Final = {"(": ")", "[": "]", "{": "}"}


def _split_args(s: str) -> list[str] | None:
    """``s`` split at its top-level commas (brackets and quotes respected); None when unbalanced."""
    out: list[str] = []
    stack: list[str] = []
    quote = ""
    cur: list[str] = []
    for ch in s:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
        elif ch == "," and not stack:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if stack or quote:
        return None
    out.append("".join(cur))
    return [a.strip() for a in out]


def written_call(text: str, empty_is_call: bool = False) -> WrittenCall | None:
    """The call a reference's text writes with arguments (``f(x, key=...)``,
    ``:func:`f(..., proxies=...)```), or None: no parentheses, empty ones (``f()`` is a
    mention in prose; a code example's call with no arguments, ``empty_is_call``, is a call),
    or no name before them."""
    inner = text.split("`")[1] if text.count("`") >= 2 else text
    s = inner.strip()
    if not s.endswith(")") or "(" not in s:
        return None
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(s[i], 0)
        if depth == 0:
            break
    else:
        return None
    if clean_name(s[:i]) is None:
        return None
    args = _split_args(s[i + 1 : -1])
    if empty_is_call and args == [""]:
        return WrittenCall(0, ())
    if args is None or args == [""] or "" in args:
        return None
    positional, keywords, more_pos, more_kw = 0, [], False, False
    for a in args:
        m = _KEYWORD_ARG.match(a)
        if a in ("...", "…"):
            more_pos = True
        elif a.startswith("**"):
            more_kw = True
        elif a.startswith("*"):
            more_pos = True
        elif m is not None:
            keywords.append(m.group(1))
        else:
            positional += 1
    return WrittenCall(positional, tuple(keywords), more_pos, more_kw)


def written_as_call(ref: TextRef) -> bool:
    """Whether a reference is written as a call: a code example's call, with or without
    arguments (``ref.call``), or text with arguments such as ``Client(url, timeout=5)``
    (``written_call``; ``Client()`` in prose is a mention)."""
    return ref.call is not None or written_call(ref.text) is not None
