"""Domain types of knowledge files: a file's units and the references to code they contain.

Pure data. Lines are 1-based; columns are 1-based and count characters (Unicode code points),
the end column exclusive (SARIF's ``startColumn``/``endColumn``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from graphmem.types import KnowledgeKind

from graphmemd.graph.model import CallShape as CallShape  # (with the code's call sites; re-exported)


class RefKind(str, Enum):
    """How a unit names code."""

    CODE = "code"  # an inline code span: `AuthService.login`, ``hash_password()``, `src/app.py`
    ROLE = "role"  # a Sphinx/MyST role: :func:`attr.define`, {class}`Foo`
    LINK = "link"  # a link to a repository file: [x](../src/app.py#L42)
    DIRECTIVE = "directive"  # .. autofunction:: attr.define, ```{autoclass} Foo```
    ANCHOR = "anchor"  # a shared note's declared anchor (front matter): written about, not in passing
    EXAMPLE = "example"  # a name a code example uses (a fenced block, a code-block, a >>> line)


class TargetKind(str, Enum):
    """What a reference's target looks like."""

    SYMBOL = "symbol"  # a (possibly dotted or path-qualified) name
    PATH = "path"  # a repository file path, maybe with a line


@dataclass(frozen=True, slots=True)
class Span:
    """Where a reference is written: 1-based lines and columns, end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class TextRef:
    """One reference to code as written in a unit.

    ``text`` is the exact source text of the span; ``target`` the cleaned name or path it
    stands for (``hash_password`` for ``hash_password()``, ``src/app.py`` for a link, the
    Sphinx target for an explicit title); ``line`` the line a ``#L42`` fragment names;
    ``module`` the Sphinx ``currentmodule`` in force (a relative name resolves under it);
    ``call`` the arguments when the name is written as a call with arguments (None: a mention);
    ``scope`` the class or module the section around it names (a heading naming a class, an
    ``autoclass`` directive's body), set where a name is read relative to it: a relative name
    (``.member``, ``def .member()``: ``target`` keeps its leading dot) or a bare name in a
    list or a table under that section."""

    kind: RefKind
    target_kind: TargetKind
    text: str
    target: str
    span: Span
    role: str = ""
    line: int = 0
    module: str = ""
    call: CallShape | None = None
    scope: str = ""


class UnitKind(str, Enum):
    """The block a unit is."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE_ROW = "table_row"
    DEFINITION = "definition"  # an rST definition-list item or field
    DIRECTIVE = "directive"  # an autodoc / py-domain directive
    NOTE = "note"  # a shared note's body (one unit)
    EXAMPLE = "example"  # a code example: a fenced block, a code-block, a >>> session


@dataclass(frozen=True, slots=True)
class Unit:
    """A block of a knowledge file that may say something about code: its lines, the
    headings above it, its text (the source lines, as written) and its references."""

    kind: UnitKind
    start_line: int
    end_line: int
    heading_path: tuple[str, ...]
    text: str
    refs: tuple[TextRef, ...] = ()


@dataclass(frozen=True, slots=True)
class KnowledgeDoc:
    """A parsed knowledge file: its units in source order (only those with references)."""

    path: str
    kind: KnowledgeKind
    units: tuple[Unit, ...]
