"""Code examples in knowledge files -> the names they use: blocks found in Markdown and
reStructuredText, parsed with the language's grammar (``ingest/parsing/examples.py``),
names bound through the examples' imports, exact spans, call shapes."""

from __future__ import annotations

from graphmemd.graph.knowledge_refs import RefIndex
from graphmemd.ingest.knowledge.examples import find_blocks, own_examples
from graphmemd.ingest.knowledge.model import CallShape, RefKind, TextRef, UnitKind
from graphmemd.ingest.parsing.examples import example_units


def refs(path: str, text: str) -> list[TextRef]:
    return [r for u in example_units(path, text) for r in u.refs]


def written(text: str, r: TextRef) -> str:
    assert r.span.line == r.span.end_line
    return text.split("\n")[r.span.line - 1][r.span.column - 1 : r.span.end_column - 1]


MD = """# Client

```python
import httpx
from attrs import define, field as fld

transport = httpx.MockTransport(handler, strict=True)
r = httpx.get("u", *args, follow_redirects=True, **kw)
httpx.Client().send(r)
c = C(x=1)
fld(default=1)
```

- in a list:

  ```py
  httpx.post("u", 1, 2)
  ```

```text
import httpx
httpx.nothing()
```
"""


def test_fenced_python_names_bound_by_imports_with_their_call_shapes() -> None:
    got = refs("docs/client.md", MD)
    by_text = {(r.span.line, written(MD, r)): r for r in got}
    assert all(r.kind is RefKind.EXAMPLE for r in got)
    assert {k: r.target for k, r in by_text.items()} == {
        (5, "define"): "attrs.define",
        (5, "field"): "attrs.field",
        (7, "httpx.MockTransport"): "httpx.MockTransport",
        (8, "httpx.get"): "httpx.get",
        (9, "httpx.Client"): "httpx.Client",
        (9, "httpx.Client().send"): "httpx.Client.send",  # a method of what the call builds
        (11, "fld"): "attrs.field",
        (17, "httpx.post"): "httpx.post",  # a later block of the page: the same session
    }  # `C`, `handler`, `r`: not imported; ```text is not parsed
    assert by_text[(7, "httpx.MockTransport")].call == CallShape(("strict",), 1, False)
    assert by_text[(8, "httpx.get")].call == CallShape(("follow_redirects",), 1, True)
    assert by_text[(9, "httpx.Client")].call == CallShape()  # code calls with no arguments (prose: a mention)
    assert by_text[(17, "httpx.post")].call == CallShape((), 3, False)
    assert by_text[(17, "httpx.post")].span.column == 3  # inside the list item's indent


RST = """Guide
=====

.. highlight:: python

.. code-block:: python
   :caption: sessions

   from flask import Flask, session
   app = Flask(__name__, static_folder="s")

A literal block::

    session.get("k")

.. code-block:: bash

   from flask import nothing

>>> from flask import g
>>> g.user
'x'
>>> import os
>>> os.path.join("a", "b")
'a/b'

.. highlight:: none

Not code::

    session.clear()
"""


def test_rst_code_blocks_literal_blocks_and_doctests() -> None:
    got = refs("docs/guide.rst", RST)
    seen = [(r.span.line, r.span.column, written(RST, r), r.target) for r in got]
    assert seen == [
        (9, 22, "Flask", "flask.Flask"),
        (9, 29, "session", "flask.session"),
        (10, 10, "Flask", "flask.Flask"),
        (14, 5, "session.get", "flask.session.get"),  # `::` in the highlight language: python
        (20, 23, "g", "flask.g"),  # a doctest: the code after the prompt
        (21, 5, "g.user", "flask.g.user"),
        (24, 5, "os.path.join", "os.path.join"),  # (dropped by own_examples: not the repository's)
    ]
    units = example_units("docs/guide.rst", RST)
    assert [u.kind for u in units] == [UnitKind.EXAMPLE] * 3
    assert units[0].heading_path == ("Guide",)
    assert units[0].text.startswith("from flask import Flask")


def test_only_the_repositorys_own_modules_are_references() -> None:
    index = RefIndex([], ["src/flask/__init__.py", "src/flask/app.py", "docs/conf.py"])
    units = own_examples(example_units("docs/guide.rst", RST), index.has_module)
    targets = [r.target for u in units for r in u.refs]
    assert "os.path.join" not in targets
    assert "flask.Flask" in targets
    stdlib = "```python\nimport json\njson.dumps({})\n```\n"
    assert own_examples(example_units("docs/x.md", stdlib), index.has_module) == []


def test_blocks_keep_each_line_origin() -> None:
    blocks = find_blocks(">>> x = 1\n>>> for i in y:\n...     print(i)\n1\n", "a.rst")
    (b,) = blocks
    assert b.tag == "python"
    assert [c for _, _, c in b.lines] == ["x = 1", "for i in y:", "    print(i)"]
    assert b.span(2, 4, 2, 9).column == 9  # '...' prompt and its space


def test_other_languages_through_their_query() -> None:
    go = '```go\nimport "github.com/acme/store"\n\nfunc main() { store.Open("db", 2) }\n```\n'
    (r,) = refs("README.md", go)
    assert (r.target, r.call, written(go, r)) == ("store.Open", CallShape((), 2, False), "store.Open")


def test_a_method_of_an_instance_of_a_class_the_page_defines() -> None:
    """``class UserSchema(Schema)`` then ``UserSchema().load(...)`` (in a later block of the
    page too): ``Schema.load`` through the base the page imported; a method the page class (or
    a page class it derives from) defines is the page's own; a base the page does not import
    gives nothing."""
    text = (
        "```python\n"
        "from marshmallow import Schema, INCLUDE\n"
        "import abc\n"
        "class UserSchema(Schema, metaclass=abc.ABCMeta):\n"
        "    name = 1\n"
        "    @staticmethod\n"
        "    def check(value):\n"
        "        return value\n"
        "class AdminSchema(UserSchema):\n"
        "    def extra(self):\n"
        "        return 1\n"
        "class Other(Unknown):\n"
        "    pass\n"
        "```\n\n"
        "```python\n"
        "UserSchema().load(data, unknown=INCLUDE)\n"
        "AdminSchema().dump(obj)\n"
        "AdminSchema().check(1)\n"
        "AdminSchema().extra()\n"
        "UserSchema().name\n"
        "Other().load(data)\n"
        "```\n"
    )
    got = [
        (r.text, r.target, r.call)
        for r in refs("docs/quickstart.md", text)
        if "Schema()" in r.text or "Other" in r.text
    ]
    assert got == [
        ("UserSchema().load", "marshmallow.Schema.load", CallShape(("unknown",), 1, False)),
        ("AdminSchema().dump", "marshmallow.Schema.dump", CallShape((), 1, False)),
    ]
