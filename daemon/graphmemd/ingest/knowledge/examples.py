"""Code examples in knowledge files -> units whose references are the names they use (pure).

Two halves around a tree-sitter parse that runs in the parse workers
(``ingest/parsing/examples.py``):

* ``find_blocks``: the examples of a Markdown or reStructuredText file: fenced blocks that
  name their language (```` ```python ````, ```` ```go ```` ...), rST ``code-block`` /
  ``code`` / ``sourcecode`` / ``doctest`` / ``testcode`` directives, literal blocks after
  ``::`` (in the ``highlight`` language in force: Sphinx's default is Python), and ``>>>``
  doctest paragraphs. Each block keeps, per code line, where it starts in the file, so a
  node of its parse maps back to an exact span. In a doctest only the ``>>>`` / ``...``
  lines are code (their output is blanked).
* ``bind``: what the parse captured (imports, dotted names as used, calls with their
  arguments) -> references. A name is a reference only when its first part is bound by an
  import of the example, or of an earlier example in the same file (a page is one session,
  as a doctest file is): ``import httpx`` then ``httpx.MockTransport(h)`` names
  ``httpx.MockTransport``; ``from attrs import define`` names ``attrs.define`` (at the
  import, and wherever ``define`` is used). Names the example binds itself, builtins and
  unimported names are not references; whether the module is the repository's own is for
  the resolver to say (``RefIndex.has_module``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Final

from graphmemd.ingest.knowledge.model import CallShape, RefKind, Span, TargetKind, TextRef, Unit, UnitKind

__all__ = [
    "CaptureKind",
    "Captured",
    "ExampleBlock",
    "PageClass",
    "Session",
    "bind",
    "example_unit",
    "find_blocks",
    "own_examples",
]


@dataclass(frozen=True, slots=True)
class ExampleBlock:
    """One code example: its language tag (lower case, as written or implied), the source
    lines it spans (1-based) and, per line of its code, (source line, 0-based source column
    of the code's first character, the code)."""

    tag: str
    start_line: int
    end_line: int
    heading_path: tuple[str, ...]
    lines: tuple[tuple[int, int, str], ...]

    @property
    def code(self) -> str:
        """The block's code, one line per source line (doctest output blanked)."""
        return "\n".join(c for _, _, c in self.lines)

    def span(self, row: int, col: int, end_row: int, end_col: int) -> Span:
        """The source span of [row:col, end_row:end_col) of ``code`` (0-based rows, columns
        in characters)."""
        a, b = self.lines[row], self.lines[end_row]
        return Span(a[0], a[1] + col + 1, b[0], b[1] + end_col + 1)


class CaptureKind(str, Enum):
    """What a capture of an example's parse is."""

    IMPORT = "import"  # a module imported (``import m``, ``import m as a``)
    IMPORT_NAME = "import_name"  # a name imported from a module (``from m import n as a``)
    USE = "use"  # a (dotted) name as used, possibly called
    CLASS = "class"  # a class the example defines: its bases as written, the names its body defines


@dataclass(frozen=True, slots=True)
class Captured:
    """One capture of an example's parse, in block coordinates (0-based rows, character
    columns). ``text`` is the name as written (``httpx.MockTransport``, the imported name),
    ``module`` the module of an import, ``alias`` its ``as`` name, ``call`` the arguments
    when the use is called with some; for a class the example defines, ``bases`` its bases as
    written and ``members`` the names its body defines."""

    kind: CaptureKind
    text: str
    row: int
    col: int
    end_row: int
    end_col: int
    module: str = ""
    alias: str = ""
    call: CallShape | None = None
    bases: tuple[str, ...] = ()
    members: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PageClass:
    """A class an example of the page defines: the dotted targets of its bases that the page
    imports (in order; a base the page defines gives its own), and the names it or a base
    the page defines defines (a method written there is the page's code, not the library's)."""

    bases: tuple[str, ...]
    members: frozenset[str]


@dataclass(slots=True)
class Session:
    """The names the examples of one file have imported so far (name -> dotted target), and
    the classes they defined (name -> ``PageClass``)."""

    bound: dict[str, str] = field(default_factory=dict)
    classes: dict[str, PageClass] = field(default_factory=dict)

    def define(self, name: str, bases: Sequence[str], members: Iterable[str]) -> None:
        """Record a class of the page (its bases read through the imports and classes so far)."""
        targets: list[str] = []
        own = set(members)
        for b in bases:
            dotted = _dotted(b)
            if dotted is None:
                continue
            root, _, rest = dotted.partition(".")
            page = self.classes.get(dotted)
            if page is not None:
                targets.extend(page.bases)
                own |= page.members
            elif root in self.bound:
                targets.append(f"{self.bound[root]}.{rest}" if rest else self.bound[root])
        self.bound.pop(name, None)  # (the name is the page's class now)
        self.classes[name] = PageClass(tuple(dict.fromkeys(targets)), frozenset(own))

    def inherited(self, name: str) -> str | None:
        """``Cls.member`` (a page class's instance's member, not defined by the page) as the
        first imported base's ``base.member``: resolved against the code, through the code's
        own bases when that base inherits it (``resolve_use``); None otherwise."""
        cls, _, member = name.partition(".")
        page = self.classes.get(cls)
        if page is None or not member or "." in member or member in page.members or not page.bases:
            return None
        return f"{page.bases[0]}.{member}"


_CHAIN: Final = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->|\\)[A-Za-z_$][\w$]*)*")
_SEPARATORS: Final = re.compile(r"::|->|\\")
#: a call of a class (a CapWords name, by convention) inside a name chain: ``Client().get``
_INNER_CALL: Final = re.compile(r"((?:^|[.:>\\])[A-Z]\w*)\([^()]*\)(?=\.|::|->)")


def _dotted(text: str) -> str | None:
    """``a.b.c`` (``::``, ``->`` and ``\\`` read as dots) for a pure name chain, else None. A
    class called inside the chain is read as its instance: ``Client().get`` names
    ``Client.get`` (a method of what ``Client()`` builds, as docs write it); a function's
    result (``fields(A).a``) has no known type."""
    squeezed = re.sub(r"\s+", "", text)
    if "(" in squeezed:  # one call, of a name: its result's methods are the type's
        squeezed, n = _INNER_CALL.subn(r"\1", squeezed)
        if n != 1:
            return None
    if not _CHAIN.fullmatch(squeezed):
        return None
    return _SEPARATORS.sub(".", squeezed)


def bind(block: ExampleBlock, captures: Iterable[Captured], session: Session, module_sep: str = ".") -> list[TextRef]:
    """The references of one example: its captures in source order, names resolved through
    the imports seen so far (this block's and the earlier blocks' of ``session``, which this
    block's imports extend). ``module_sep`` splits an import's module path (``/`` for Go's
    ``"github.com/x/y"``: the package is bound as ``y``)."""
    refs: list[TextRef] = []
    for c in sorted(captures, key=lambda c: (c.row, c.col, c.kind is not CaptureKind.IMPORT)):
        module = c.module.strip("\"'`<>")
        if module_sep != "." and module_sep in module:
            module = module.rsplit(module_sep, 1)[-1]
        module = _SEPARATORS.sub(".", module)
        span = block.span(c.row, c.col, c.end_row, c.end_col)
        if c.kind is CaptureKind.IMPORT:
            if not module or module.startswith("."):
                continue
            if c.alias:
                session.bound[c.alias] = module
            else:
                root = module.split(".")[0]
                session.bound[root] = root
        elif c.kind is CaptureKind.CLASS:
            session.define(c.text, c.bases, c.members)
        elif c.kind is CaptureKind.IMPORT_NAME:
            name = _dotted(c.text)
            if not module or module.startswith(".") or name is None or name == "*":
                continue
            target = f"{module}.{name}"
            session.bound[c.alias or name.split(".")[-1]] = target
            refs.append(TextRef(RefKind.EXAMPLE, TargetKind.SYMBOL, c.text, target, span))
        else:
            name = _dotted(c.text)
            if name is None:
                continue
            root, _, rest = name.partition(".")
            base = session.bound.get(root)
            if base is None:
                # a method of a page class's instance (``UserSchema().load(d)``): its base's
                via = session.inherited(name)
                if via is not None:
                    refs.append(TextRef(RefKind.EXAMPLE, TargetKind.SYMBOL, c.text, via, span, call=c.call))
                continue
            target = f"{base}.{rest}" if rest else base
            if "." not in target:  # the module itself: a module mention, not a use of its code
                continue
            refs.append(TextRef(RefKind.EXAMPLE, TargetKind.SYMBOL, c.text, target, span, call=c.call))
    return refs


def own_examples(units: Iterable[Unit], is_own: Callable[[str], bool]) -> list[Unit]:
    """The example units' references to the repository's own modules (``is_own`` of a
    target: ``RefIndex.has_module``); units left without one are dropped. An example using
    the standard library or numpy is not about this repository's code."""
    out: list[Unit] = []
    for u in units:
        refs = tuple(r for r in u.refs if r.kind is not RefKind.EXAMPLE or is_own(r.target))
        if refs:
            out.append(replace(u, refs=refs) if len(refs) != len(u.refs) else u)
    return out


def example_unit(block: ExampleBlock, refs: Sequence[TextRef], src: Sequence[str]) -> Unit:
    """The unit of an example with references: its lines as written."""
    text = "\n".join(src[block.start_line - 1 : block.end_line]).strip()
    return Unit(UnitKind.EXAMPLE, block.start_line, block.end_line, block.heading_path, text, tuple(refs))


# ------------------------------------------------------------------ finding the blocks

#: language tags that mean a doctest session (``>>>`` prompts) in Python
DOCTEST_TAGS: Final = frozenset({"pycon", "doctest", "python-console", "pycon3"})
_PROMPT: Final = re.compile(r"^(\s*)(>>>|\.\.\.)( |$)")


def _code_lines(tag: str, rows: Sequence[tuple[int, int, str]]) -> tuple[str, tuple[tuple[int, int, str], ...]]:
    """A block's code lines; a doctest (any ``>>>`` line, or a doctest tag) keeps only its
    prompt lines' code, at the column after the prompt. The tag ``pycon`` reads as python."""
    doctest = tag in DOCTEST_TAGS or any(_PROMPT.match(c) and c.lstrip().startswith(">>>") for _, _, c in rows)
    if not doctest:
        return tag, tuple(rows)
    out: list[tuple[int, int, str]] = []
    for ln, col, c in rows:
        m = _PROMPT.match(c)
        if m is None:
            out.append((ln, col, ""))
        else:
            out.append((ln, col + m.end(), c[m.end() :]))
    return ("python" if tag in DOCTEST_TAGS else tag), tuple(out)


def _block(tag: str, rows: Sequence[tuple[int, int, str]], headings: tuple[str, ...]) -> ExampleBlock | None:
    rows = list(rows)
    while rows and not rows[-1][2].strip():
        rows.pop()
    while rows and not rows[0][2].strip():
        rows.pop(0)
    if not rows:
        return None
    tag, lines = _code_lines(tag.lower(), rows)
    last = max(k for k, (_, _, c) in enumerate(lines) if c.strip()) if any(c.strip() for _, _, c in lines) else -1
    if last < 0:
        return None
    lines = lines[: last + 1]
    return ExampleBlock(tag, lines[0][0], rows[-1][0], headings, lines)


def _md_tag(info: str) -> str:
    """A fence's language (```` ```python title="x" ````, ```` ```{code-block} python ````)."""
    words = info.strip().split()
    if not words:
        return ""
    if words[0] in ("{code-block}", "{code}", "{sourcecode}", "{testcode}", "{doctest}"):
        return words[1] if len(words) > 1 else ("python" if words[0] in ("{testcode}", "{doctest}") else "")
    return "" if words[0].startswith("{") else words[0].strip("{}.").lower()


def _markdown_blocks(src: Sequence[str]) -> list[ExampleBlock]:
    from markdown_it import MarkdownIt  # (~20 ms: imported by the first Markdown file, not at every start)

    tokens = MarkdownIt("commonmark").parse("\n".join(src))
    headings: list[str] = []
    out: list[ExampleBlock] = []
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            level = int(tok.tag[1])
            headings = [*headings[: level - 1], *[""] * max(0, level - 1 - len(headings)), tokens[i + 1].content]
        elif tok.type == "fence" and tok.map is not None:
            tag = _md_tag(tok.info)
            if not tag:
                continue
            rows = []
            for k, cl in enumerate(tok.content.split("\n")[:-1] if tok.content.endswith("\n") else [tok.content]):
                ln = tok.map[0] + 1 + k
                s = src[ln] if ln < len(src) else ""
                col = len(s.rstrip()) - len(cl.rstrip()) if cl.strip() and s.rstrip().endswith(cl.rstrip()) else 0
                rows.append((ln + 1, col, cl))
            got = _block(tag, rows, tuple(headings))
            if got is not None:
                out.append(got)
    return out


_RST_ADORN: Final = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1+\s*$")
_RST_CODE: Final = re.compile(
    r"^(\s*)\.\.\s+(?:[\w-]+:)?(code-block|code|sourcecode|doctest|testcode|testsetup)::\s*(\S*)"
)
_RST_HIGHLIGHT: Final = re.compile(r"^\s*\.\.\s+highlight::\s*(\S+)")
_RST_DIRECTIVE: Final = re.compile(r"^\s*\.\.\s+\S")


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


def _rst_body(src: Sequence[str], i: int, outer: int, options: bool) -> tuple[list[tuple[int, int, str]], int]:
    """The indented body after line ``i`` (0-based) of a directive or ``::`` paragraph whose
    indent is ``outer``: (rows, the index after it). A directive's ``:option:`` lines first."""
    j = i + 1
    if options:
        while j < len(src) and src[j].strip().startswith(":") and _indent(src[j]) > outer:
            j += 1
    start = j
    while j < len(src) and (not src[j].strip() or _indent(src[j]) > outer):
        j += 1
    body = [k for k in range(start, j) if src[k].strip()]
    if not body:
        return [], j
    cut = min(_indent(src[k]) for k in body)
    return [(k + 1, cut, src[k][cut:]) for k in range(start, j)], j


def _rst_blocks(src: Sequence[str], default: str) -> list[ExampleBlock]:
    out: list[ExampleBlock] = []
    highlight = default
    styles: list[str] = []
    headings: list[str] = []
    i = 0
    while i < len(src):
        line = src[i]
        nxt = src[i + 1] if i + 1 < len(src) else ""
        if (
            line.strip()
            and not line[0].isspace()
            and not line.startswith(">>>")
            and _RST_ADORN.match(nxt)
            and len(nxt.strip()) >= len(line.strip())
        ):
            style = nxt.strip()[0] + ("o" if i > 0 and _RST_ADORN.match(src[i - 1]) else "")
            if style not in styles:
                styles.append(style)
            level = styles.index(style)
            headings = [*headings[:level], *[""] * max(0, level - len(headings)), line.strip()]
            i += 2
            continue
        m = _RST_HIGHLIGHT.match(line)
        if m:
            highlight = m.group(1).lower()
            i += 1
            continue
        m = _RST_CODE.match(line)
        if m:
            name, tag = m.group(2), m.group(3)
            tag = tag or ("python" if name in ("doctest", "testcode", "testsetup") else highlight)
            rows, i = _rst_body(src, i, len(m.group(1)), True)
            got = _block(tag, rows, tuple(headings))
            if got is not None:
                out.append(got)
            continue
        stripped = line.rstrip()
        if stripped.endswith("::") and (stripped.strip() == "::" or not _RST_DIRECTIVE.match(line)):
            rows, j = _rst_body(src, i, _indent(line), False)
            if rows:
                got = _block(highlight, rows, tuple(headings))
                if got is not None:
                    out.append(got)
                i = j
                continue
        if line.lstrip().startswith(">>>") and (i == 0 or not src[i - 1].strip()):
            j = i
            while j < len(src) and src[j].strip():
                j += 1
            got = _block("pycon", [(k + 1, 0, src[k]) for k in range(i, j)], tuple(headings))
            if got is not None:
                out.append(got)
            i = j
            continue
        i += 1
    return out


def find_blocks(text: str, path: str, default_highlight: str = "python") -> list[ExampleBlock]:
    """The code examples of a knowledge file (Markdown, or reStructuredText by its
    extension) in source order. ``default_highlight``: the language of an rST ``::``
    literal block before any ``highlight`` directive (Sphinx's default is Python)."""
    src = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if path.lower().endswith(".rst"):
        return _rst_blocks(src, default_highlight)
    return _markdown_blocks(src)


def tag_languages(table: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Language tag -> language name, from the data file's ``language -> [tags]`` table."""
    return {tag.lower(): lang for lang, tags in table.items() for tag in (lang, *tags)}
