"""Which files of a repository are knowledge files, and of what kind (pure).

The default set: agent instruction files, decision records, documentation and shared notes
(``DEFAULTS``); change logs, release notes and upgrade or migration guides are left out
(``DEFAULT_EXCLUDES``: history in prose, they name old code on purpose). A repository adds
or removes files in ``.graphmem.toml``::

    [knowledge]
    include = ["design/**/*.md"]      # gitignore-style globs, added to the defaults (a file
                                      # the default exclusions leave out is taken back in)
    exclude = ["docs/legacy/**"]      # taken out (wins over include)
    defaults = true                   # false: only the include globs

``.gitignore`` is respected by the walk itself. ``parse_config`` is bytes in, selection out;
a malformed file gives the default selection and the reason.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pathspec
from graphmem.types import KnowledgeKind

CONFIG_FILE: Final = ".graphmem.toml"
NOTES_DIR: Final = ".graphmem/notes"

AGENT_GLOBS: Final = (
    "CLAUDE.md", "AGENTS.md", "GEMINI.md", "/.github/copilot-instructions.md",
    "/.github/instructions/*.instructions.md", "/.cursor/rules/**/*.mdc", "/.cursor/rules/**/*.md",
    "/.cursorrules", "/.windsurfrules", "/.windsurf/rules/*.md", "/.clinerules",
)  # fmt: skip
DECISION_GLOBS: Final = tuple(
    f"/{base}/**/*.{ext}"
    for base in ("docs/adr", "doc/adr", "docs/decisions", "doc/decisions", "adr", "docs/architecture/decisions")
    for ext in ("md", "rst", "mdx")
)
DOC_GLOBS: Final = (
    "/docs/**/*.md", "/docs/**/*.rst", "/docs/**/*.mdx", "/doc/**/*.md", "/doc/**/*.rst", "/doc/**/*.mdx",
    "/*.md", "/*.rst", "/*.mdx",
)  # fmt: skip
NOTE_GLOBS: Final = (f"/{NOTES_DIR}/*.md",)
#: left out by default: history written as prose names old code on purpose — change logs,
#: release notes, what's-new pages, upgrade and migration guides (the names the tools that
#: write them and the big projects use: Sphinx's ``whatsnew/``, Django's ``releases/``
#: folder is not among them: it is too common a word); deprecation pages and release
#: announcements (pytest's ``deprecations.rst``, ``announce/release-2.9.1.rst``: what was
#: deprecated or removed in which version; Sphinx's ``extdev/deprecated.rst``); licences. Matched whatever the case
#: of the name (express keeps its change log in ``History.md``, others in ``Changes.rst``
#: or ``changelog.md``). A repository's include globs take such a file back in.
DEFAULT_EXCLUDES: Final = (
    "changelog*", "changes*", "history*", "news*", "release*notes*",
    "changelog.d/", "changelog/", "release-notes*", "release_notes*", "releasenotes/",
    "whatsnew/", "whatsnew.*", "whats-new*", "whats_new*",
    "upgrading*", "upgrading/", "upgrade-guide*", "upgrade_guide*",
    "migrating*", "migrating/", "migration-guide*", "migration_guide*",
    "deprecations.*", "deprecation.*", "deprecated.*", "release-[0-9]*", "announce/",
    "license*", "licence*", "copying*", "code_of_conduct*",
)  # fmt: skip
#: the extensions a knowledge file may have ("" for ``.windsurfrules`` and friends)
EXTENSIONS: Final = frozenset({".md", ".mdx", ".mdc", ".markdown", ".rst", ""})


def _spec(lines: Sequence[str]) -> pathspec.PathSpec[Any]:
    return pathspec.PathSpec.from_lines("gitignore", lines)


@dataclass(frozen=True)
class KnowledgeSelection:
    """The knowledge files of one repository: include and exclude globs, and the kinds."""

    include: pathspec.PathSpec[Any]
    exclude: pathspec.PathSpec[Any]
    agents: pathspec.PathSpec[Any]
    decisions: pathspec.PathSpec[Any]
    notes: pathspec.PathSpec[Any]
    #: the default exclusions (lower case, matched against the lower-cased path), and the
    #: repository's own include globs (which take back in a file the default exclusions leave out)
    default_exclude: pathspec.PathSpec[Any] = field(default_factory=lambda: _spec(()))
    included: pathspec.PathSpec[Any] = field(default_factory=lambda: _spec(()))

    def kind_of(self, rel: str) -> KnowledgeKind | None:
        """The kind of knowledge file ``rel`` is (POSIX, relative to the root), or None."""
        name = rel.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        ext = name[dot:].lower() if dot > 0 else ""
        if ext not in EXTENSIONS or not self.include.match_file(rel) or self.exclude.match_file(rel):
            return None
        if self.default_exclude.match_file(rel.lower()) and not self.included.match_file(rel):
            return None
        if self.notes.match_file(rel):
            return KnowledgeKind.SHARED_NOTE
        if self.agents.match_file(rel):
            return KnowledgeKind.AGENT_INSTRUCTIONS
        if self.decisions.match_file(rel):
            return KnowledgeKind.DECISION_RECORD
        return KnowledgeKind.DOCUMENTATION


def selection(include: Sequence[str] = (), exclude: Sequence[str] = (), defaults: bool = True) -> KnowledgeSelection:
    """A selection of the default globs (unless ``defaults`` is false) plus ``include``,
    minus the default exclusions (unless ``include`` names the file) and ``exclude``. Shared
    notes are always included."""
    base = [*AGENT_GLOBS, *DECISION_GLOBS, *DOC_GLOBS] if defaults else []
    return KnowledgeSelection(
        include=_spec([*base, *NOTE_GLOBS, *include]),
        exclude=_spec(exclude),
        agents=_spec(AGENT_GLOBS),
        decisions=_spec(DECISION_GLOBS),
        notes=_spec(NOTE_GLOBS),
        default_exclude=_spec(DEFAULT_EXCLUDES if defaults else ()),
        included=_spec(include),
    )


DEFAULT_SELECTION: Final = selection()


def _globs(table: dict[str, object], key: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"[knowledge] {key} must be a list of glob strings")
    return [str(v) for v in value]


def parse_config(data: bytes | None) -> tuple[KnowledgeSelection, str]:
    """The selection a ``.graphmem.toml`` asks for (None: no file), and "" or why the file
    was not usable (then the default selection)."""
    if data is None:
        return DEFAULT_SELECTION, ""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
        table = doc.get("knowledge", {})
        if not isinstance(table, dict):
            raise ValueError("[knowledge] must be a table")
        defaults = table.get("defaults", True)
        if not isinstance(defaults, bool):
            raise ValueError("[knowledge] defaults must be true or false")
        return selection(_globs(table, "include"), _globs(table, "exclude"), defaults), ""
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as exc:
        return DEFAULT_SELECTION, f"{CONFIG_FILE}: {exc}; using the default knowledge files"
