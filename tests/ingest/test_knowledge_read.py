"""The pure reader of knowledge files: units, heading paths and references at exact spans
(Markdown with MyST, reStructuredText with Sphinx roles and directives), shared notes,
the file selection and unit identity. Bytes in, units out: no daemon, no I/O (but the last
test, which imports the daemon in a fresh interpreter to see what its start-up loads)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from graphmem.types import KnowledgeKind
from graphmemd.ingest.knowledge.classify import classify_code, clean_name, link_target
from graphmemd.ingest.knowledge.identity import KnownUnit, pair_units, unit_id
from graphmemd.ingest.knowledge.model import RefKind, TargetKind, TextRef, Unit, UnitKind
from graphmemd.ingest.knowledge.notes import SharedNote, parse_note, render_note
from graphmemd.ingest.knowledge.read import read_doc
from graphmemd.ingest.knowledge.selection import parse_config, selection


def _at(text: str, ref: TextRef) -> str:
    """The source text a reference's span covers (one line)."""
    s = ref.span
    assert s.line == s.end_line
    return text.split("\n")[s.line - 1][s.column - 1 : s.end_column - 1]


def _refs(units: tuple[Unit, ...]) -> list[TextRef]:
    return [r for u in units for r in u.refs]


MD = """# Guide

## Auth `AuthService`

Use `AuthService.login` and `hash_password()`; see [the helper](../src/auth/helper.py#L42).
Also `pip install attrs` and **bold `x.y`** text é `after.emoji`.

- item with {func}`attrs.define` and {meth}`~attrs.Foo.bar`
  - nested `inner.fn`

| Col | Ref |
|-----|-----|
| a   | `cell.ref` and \\| `z.w` |

```python
not_a_ref()
```

```{autofunction} attrs.field
```
"""


def test_markdown_units_heading_paths_and_exact_spans() -> None:
    doc = read_doc("docs/guide.md", MD.encode(), KnowledgeKind.DOCUMENTATION)
    kinds = [(u.kind, u.start_line, u.end_line) for u in doc.units]
    assert kinds == [
        (UnitKind.HEADING, 3, 3),
        (UnitKind.PARAGRAPH, 5, 6),
        (UnitKind.LIST_ITEM, 8, 8),
        (UnitKind.LIST_ITEM, 9, 9),
        (UnitKind.TABLE_ROW, 13, 13),
        (UnitKind.DIRECTIVE, 19, 20),
    ]
    assert doc.units[1].heading_path == ("Guide", "Auth `AuthService`")
    for r in _refs(doc.units):
        assert _at(MD, r) == r.text, r
    targets = [(r.kind, r.target_kind, r.target, r.line) for r in _refs(doc.units)]
    assert (RefKind.CODE, TargetKind.SYMBOL, "AuthService.login", 0) in targets
    assert (RefKind.CODE, TargetKind.SYMBOL, "hash_password", 0) in targets
    assert (RefKind.LINK, TargetKind.PATH, "src/auth/helper.py", 42) in targets
    assert (RefKind.ROLE, TargetKind.SYMBOL, "attrs.define", 0) in targets
    assert (RefKind.CODE, TargetKind.SYMBOL, "after.emoji", 0) in targets
    assert (RefKind.DIRECTIVE, TargetKind.SYMBOL, "attrs.field", 0) in targets
    assert not any("pip" in r.text or "not_a_ref" in r.text for r in _refs(doc.units))
    role = next(r for r in _refs(doc.units) if r.kind is RefKind.ROLE and "Foo" in r.text)
    assert role.text == "{meth}`~attrs.Foo.bar`"
    assert role.target == "attrs.Foo.bar"


RST = """Title with :class:`Foo`
=======================

.. currentmodule:: mypkg

Hash with :func:`hash_password` or
:meth:`AuthService.login() <mypkg.AuthService.login>`; ``literal.code`` too.

Section
-------

* item :exc:`ValueError`
* :data:`mypkg.CONST` and :ref:`not-code`

.. autofunction:: mypkg.make_token

.. versionadded:: 1.2
   Added :func:`inside.fn`.

.. code-block:: python

   ignored.call()
"""


def test_rst_roles_directives_and_literals_at_exact_spans() -> None:
    doc = read_doc("docs/api.rst", RST.encode(), KnowledgeKind.DOCUMENTATION)
    refs = _refs(doc.units)
    for r in refs:
        assert _at(RST, r) == r.text, r
    by_text = {r.text: r for r in refs}
    assert by_text[":func:`hash_password`"].module == "mypkg"
    assert by_text[":meth:`AuthService.login() <mypkg.AuthService.login>`"].target == "mypkg.AuthService.login"
    assert by_text["literal.code"].kind is RefKind.CODE
    assert by_text["mypkg.make_token"].kind is RefKind.DIRECTIVE
    assert by_text[":func:`inside.fn`"].target == "inside.fn"
    assert not any("not-code" in r.text or "ignored" in r.text for r in refs)
    heading = next(u for u in doc.units if u.kind is UnitKind.HEADING)
    assert heading.start_line == 1
    assert heading.refs[0].target == "Foo"
    item = next(u for u in doc.units if any(r.target == "ValueError" for r in u.refs))
    assert item.kind is UnitKind.LIST_ITEM
    assert item.heading_path[-1] == "Section"


DEFINITIONS_RST = """Logging
=======

**location**
   Where the message emitted. For more detail, see
   :meth:`mypkg.Logger.warning`.

   A second paragraph naming :func:`mypkg.other`.

``once``
   Warn only once.

:param name: the :func:`mypkg.f` name to use.
"""


def test_a_definitions_first_paragraph_is_one_unit_with_its_term() -> None:
    """Sphinx's logging docs: "Where the message emitted. For more detail, see
    :meth:`SphinxLoggerAdapter.warning`." was a unit (a brief line) without the word it defines
    ("**location**"); a reference in the term made a unit of the whole item apart from it."""
    doc = read_doc("docs/logging.rst", DEFINITIONS_RST.encode(), KnowledgeKind.DOCUMENTATION)
    units = {tuple(r.target for r in u.refs): u for u in doc.units}
    first = units[("mypkg.Logger.warning",)]
    assert (first.kind, first.start_line, first.end_line) == (UnitKind.DEFINITION, 4, 6)
    assert first.text.startswith("**location**\n   Where the message emitted.")
    second = units[("mypkg.other",)]
    assert (second.kind, second.start_line, second.end_line) == (UnitKind.PARAGRAPH, 8, 8)
    term = units[("once",)]  # the term's own reference: the term and its definition, once
    assert (term.kind, term.start_line, term.end_line) == (UnitKind.DEFINITION, 10, 11)
    field = units[("mypkg.f",)]  # a field's name is on its body's first line already
    assert field.text == ":param name: the :func:`mypkg.f` name to use."
    assert len(doc.units) == 4
    for r in _refs(doc.units):
        assert _at(DEFINITIONS_RST, r) == r.text, r


def test_myst_eval_rst_fences_keep_the_markdown_lines_and_module() -> None:
    text = "# API\n\n```{currentmodule} click\n```\n\n```{eval-rst}\n.. autofunction:: group\n```\n"
    doc = read_doc("docs/api.md", text.encode(), KnowledgeKind.DOCUMENTATION)
    (ref,) = _refs(doc.units)
    assert (ref.span.line, ref.target, ref.module) == (7, "group", "click")
    assert _at(text, ref) == "group"


def test_front_matter_of_cursor_rules_is_not_read_as_text() -> None:
    text = "---\ndescription: `not.this`\nglobs: app/**\n---\n\nUse `AuthService.logout`.\n"
    doc = read_doc(".cursor/rules/auth.mdc", text.encode(), KnowledgeKind.AGENT_INSTRUCTIONS)
    assert [r.target for r in _refs(doc.units)] == ["AuthService.logout"]
    assert doc.units[0].start_line == 6


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("hash_password()", (TargetKind.SYMBOL, "hash_password", 0)),
        ("hash_password(pw, salt=1)", (TargetKind.SYMBOL, "hash_password", 0)),
        ("@app.route", (TargetKind.SYMBOL, "app.route", 0)),
        ("AuthService#login", (TargetKind.SYMBOL, "AuthService.login", 0)),
        ("crate::auth::login", (TargetKind.SYMBOL, "crate.auth.login", 0)),
        ("app/auth/crypto.py::hash_password", (TargetKind.SYMBOL, "app/auth/crypto.py::hash_password", 0)),
        ("src/app.py:42", (TargetKind.PATH, "src/app.py", 42)),
        ("./web/src/client.ts", (TargetKind.PATH, "web/src/client.ts", 0)),
        ("pip install attrs", None),
        ("x = 1", None),
        ("True", None),
        ("ab", None),
        ("__repr__", None),  # a bare dunder is Python's protocol, no symbol of the repository
        ("__init__()", None),
        ("Attribute.__repr__", (TargetKind.SYMBOL, "Attribute.__repr__", 0)),
    ],
)
def test_which_code_spans_may_name_code(written: str, expected: tuple[TargetKind, str, int] | None) -> None:
    assert classify_code(written) == expected


def test_names_and_links() -> None:
    assert clean_name("~attrs.define") == "attrs.define"
    assert clean_name("not a name") is None
    assert link_target("../server/handler.go#L16", "docs/architecture.md") == ("server/handler.go", 16)
    assert link_target("/src/x.py#L3-L9", "docs/a.md") == ("src/x.py", 3)
    assert link_target("https://example.com/x.py", "docs/a.md") is None
    assert link_target("#section", "docs/a.md") is None
    assert link_target("../../outside.py", "docs/a.md") is None


def test_shared_note_round_trip_and_anchor_spans() -> None:
    note = SharedNote(
        id="0123456789abcdef",
        anchors=("app/auth/crypto.py::hash_password", "app/x.py"),
        category="constraint",
        tags=("security",),
        author="alice",
        created=1_700_000_000.0,
        body="Keep `hash_password` constant-time.",
        body_line=0,
        confirmed=1_700_000_100.0,
        confirmed_by="bob",
    )
    text = render_note(note)
    back = parse_note(text)
    assert back is not None
    assert back.id == note.id
    assert back.anchors == note.anchors
    assert back.tags == ("security",)
    assert (back.created, back.confirmed, back.confirmed_by) == (note.created, note.confirmed, "bob")
    doc = read_doc(".graphmem/notes/0123456789abcdef.md", text.encode(), KnowledgeKind.SHARED_NOTE)
    (unit,) = doc.units
    assert unit.kind is UnitKind.NOTE
    anchors = [r for r in unit.refs if r.kind is RefKind.ANCHOR]
    assert [_at(text, r) for r in anchors] == list(note.anchors)
    body = [r for r in unit.refs if r.kind is RefKind.CODE]
    assert [_at(text, r) for r in body] == ["hash_password"]
    assert parse_note("no front matter") is None


def test_default_selection_and_repository_config() -> None:
    sel = selection()
    assert sel.kind_of("CLAUDE.md") is KnowledgeKind.AGENT_INSTRUCTIONS
    assert sel.kind_of("pkg/AGENTS.md") is KnowledgeKind.AGENT_INSTRUCTIONS
    assert sel.kind_of(".cursor/rules/auth.mdc") is KnowledgeKind.AGENT_INSTRUCTIONS
    assert sel.kind_of(".windsurfrules") is KnowledgeKind.AGENT_INSTRUCTIONS
    assert sel.kind_of(".github/copilot-instructions.md") is KnowledgeKind.AGENT_INSTRUCTIONS
    assert sel.kind_of("docs/adr/0001-x.md") is KnowledgeKind.DECISION_RECORD
    assert sel.kind_of("doc/decisions/0002.rst") is KnowledgeKind.DECISION_RECORD
    assert sel.kind_of("docs/deep/api.rst") is KnowledgeKind.DOCUMENTATION
    assert sel.kind_of("README.md") is KnowledgeKind.DOCUMENTATION
    assert sel.kind_of(".graphmem/notes/0123456789abcdef.md") is KnowledgeKind.SHARED_NOTE
    assert sel.kind_of("CHANGELOG.md") is None
    for history in (  # history in prose: left out by default
        "docs/upgrading.rst", "UPGRADING.md", "docs/migrating.md", "docs/migration-guide.md",
        "docs/whatsnew/3.12.rst", "doc/whats-new.md", "docs/release-notes.md", "docs/upgrading/v2.md",
        "History.md", "Changes.rst", "docs/Changelog.md", "News.rst", "ReleaseNotes.md", "License.md",
        "docs/Upgrading.md", "WhatsNew/1.0.md", "doc/en/deprecations.rst", "doc/en/announce/release-2.9.1.rst",
        "doc/extdev/deprecated.rst",
        "docs/release-1.0.md",
    ):  # fmt: skip
        assert sel.kind_of(history) is None, history
    kept = ("docs/upgrade.md", "docs/migrations.md", "docs/releases.rst", "docs/api.rst", "docs/release-process.md")
    for doc in kept:
        assert sel.kind_of(doc) is KnowledgeKind.DOCUMENTATION, doc
    back, err = parse_config(b'[knowledge]\ninclude = ["docs/upgrading.rst"]\n')  # taken back in
    assert err == ""
    assert back.kind_of("docs/upgrading.rst") is KnowledgeKind.DOCUMENTATION
    assert back.kind_of("docs/migrating.md") is None
    assert back.kind_of("CHANGELOG.md") is None
    mine, _ = parse_config(b'[knowledge]\ninclude = ["docs/**/*.rst"]\nexclude = ["docs/upgrading.rst"]\n')
    assert mine.kind_of("docs/upgrading.rst") is None  # the repository's own exclusion still wins
    assert sel.kind_of("src/notes.md") is None
    assert sel.kind_of("docs/conf.py") is None
    custom, err = parse_config(b'[knowledge]\ninclude = ["design/**/*.md"]\nexclude = ["docs/legacy/**"]\n')
    assert err == ""
    assert custom.kind_of("design/x/y.md") is KnowledgeKind.DOCUMENTATION
    assert custom.kind_of("docs/legacy/old.md") is None
    assert custom.kind_of("docs/new.md") is KnowledgeKind.DOCUMENTATION
    only, _ = parse_config(b'[knowledge]\ndefaults = false\ninclude = ["NOTES.md"]\n')
    assert only.kind_of("NOTES.md") is not None
    assert only.kind_of("CLAUDE.md") is None
    bad, err = parse_config(b"[knowledge\ninclude = 3")
    assert "using the default" in err
    assert bad.kind_of("CLAUDE.md") is not None
    _, err = parse_config(b"[knowledge]\ninclude = 3\n")
    assert "list of glob strings" in err


def _unit(text: str, heading: tuple[str, ...] = ("H",), line: int = 1) -> Unit:
    return Unit(UnitKind.PARAGRAPH, line, line, heading, text)


def test_unit_identity_survives_edits_elsewhere_moves_and_its_own_edit() -> None:
    a, b, c = "Use `login` always.", "Hash with `hash_password`.", "Call `logout` at the end."
    first = pair_units("r", "CLAUDE.md", [], [_unit(a), _unit(b), _unit(c)])
    assert first == [unit_id("r", "CLAUDE.md", ("H",), t, 1) for t in (a, b, c)]
    known = [KnownUnit(i, ("H",), t) for i, t in zip(first, (a, b, c), strict=True)]
    # a paragraph inserted above and the lines shifted: same ids
    shifted = pair_units("r", "CLAUDE.md", known, [_unit("New `x.y`.", line=1), _unit(a, line=3), _unit(b, line=5)])
    assert shifted[1:] == first[:2]
    assert shifted[0] not in first
    # moved to another section, reflowed: same id
    moved = pair_units("r", "CLAUDE.md", known, [_unit(b.replace(" ", "\n"), ("Other",)), _unit(a), _unit(c)])
    assert moved == [first[1], first[0], first[2]]
    # the unit itself edited in place: still the same id
    edited = pair_units("r", "CLAUDE.md", known, [_unit(a), _unit("Hash with `hash_password` twice."), _unit(c)])
    assert edited == first
    # rewritten beyond recognition: a new unit
    rewritten = pair_units("r", "CLAUDE.md", known, [_unit(a), _unit("Entirely different words here.")])
    assert rewritten[0] == first[0]
    assert rewritten[1] not in first


def test_the_readers_are_imported_by_the_first_file_that_needs_them_not_at_start_up() -> None:
    """markdown-it and docutils cost 60-140 ms to import: the daemon's start-up does not load
    them (importing the parse pool's module, which imports ``read`` for ``decode``, included);
    reading a note does."""
    code = (
        "import sys\n"
        "import graphmemd.main, graphmemd.server, graphmemd.indexing.knowledge, graphmemd.ingest.parse_pool\n"
        "heavy = lambda: sorted(m for m in ('docutils', 'markdown_it') if m in sys.modules)\n"
        "print(heavy())\n"
        "from graphmemd.ingest.knowledge.read import read_note\n"
        "read_note('n.md', '---\\nanchors: [a.py::f]\\n---\\nSee `g`.\\n')\n"
        "print(heavy())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split("\n")[:2] == ["[]", "['docutils', 'markdown_it']"]


MEMBERS_RST = """\
API
===

.. module:: jinja2

.. autoclass:: Environment([options])
    :members: from_string, get_template,
              join_path
    :undoc-members:

    Text about the environment.

.. automodule:: jinja2.utils
   :members: escape, Markup

.. autoclass:: Undefined
   :members:
"""


def test_an_autodoc_members_list_names_each_member_at_its_span() -> None:
    doc = read_doc("docs/api.rst", MEMBERS_RST.encode(), KnowledgeKind.DOCUMENTATION)
    lists = [u for u in doc.units if any(r.role.endswith(":members") for r in u.refs)]
    assert [(u.start_line, u.end_line) for u in lists] == [(7, 8), (14, 14)]
    env, utils = lists
    assert [(r.text, r.target, r.scope, r.module) for r in env.refs] == [
        ("from_string", ".from_string", "Environment", "jinja2"),
        ("get_template", ".get_template", "Environment", "jinja2"),
        ("join_path", ".join_path", "Environment", "jinja2"),
    ]
    assert [(r.target, r.module, r.scope) for r in utils.refs] == [
        ("escape", "jinja2.utils", ""),
        ("Markup", "jinja2.utils", ""),
    ]
    for r in (*env.refs, *utils.refs):
        assert _at(MEMBERS_RST, r) == r.text, r
        assert r.kind is RefKind.DIRECTIVE
    # a bare ``:members:`` (every member) names none; the class directive keeps its own reference
    assert not any(r.text == "Undefined" and r.role.endswith(":members") for u in doc.units for r in u.refs)
    assert any(r.text == "Environment" and r.role == "autoclass" for u in doc.units for r in u.refs)
