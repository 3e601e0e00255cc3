"""A module's lazy hook serving names it no longer defines (``graph.served``: pure, rules as data)."""

from __future__ import annotations

from graphmemd.graph.model import Language
from graphmemd.graph.served import hook_names, rules_for, served
from graphmemd.graph.successors import successors

PY = rules_for(Language.PYTHON)
assert PY is not None

CLICK = '''import typing as t

from .core import Command as Command


def __getattr__(name: str) -> object:
    import warnings

    if name == "BaseCommand":
        from .core import _BaseCommand

        warnings.warn(
            "'BaseCommand' is deprecated and will be removed in Click 9.0. Use"
            " 'Command' instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return _BaseCommand

    if name in {
        "OptionParser",
        "Argument",
    }:
        warnings.warn(f"'parser.{name}' is deprecated.", DeprecationWarning, stacklevel=2)
        return globals()[f"_{name}"]

    if "split_arg_string" == name:
        from .shell_completion import split_arg_string

        warnings.warn("Importing 'parser.split_arg_string' is deprecated.", DeprecationWarning)
        return split_arg_string

    raise AttributeError(name)


def after():
    return "lazy" == name
'''


def test_a_name_tested_with_equality_is_served_with_its_warning_and_message() -> None:
    s = served(CLICK, "BaseCommand", PY)
    assert s is not None
    assert (s.hook, s.line, s.warns, s.returns, s.source) == ("__getattr__", 6, True, "_BaseCommand", ".core")
    assert "Use 'Command' instead." in s.text  # adjacent literals joined: one message
    assert successors(s.text, "BaseCommand") == ["Command"]
    assert "OptionParser" not in s.text  # the branch ends where the next test starts


def test_reversed_equality_and_a_literal_set_over_lines() -> None:
    s = served(CLICK, "split_arg_string", PY)
    assert s is not None
    assert (s.returns, s.source, s.warns) == ("split_arg_string", ".shell_completion", True)
    for name in ("OptionParser", "Argument"):
        got = served(CLICK, name, PY)
        assert got is not None, name
        assert got.warns, name
        assert got.returns == ""  # globals()[...]: no plain name


def test_names_the_hook_does_not_test_are_not_served() -> None:
    assert served(CLICK, "Command", PY) is None  # defined (imported), not served
    assert served(CLICK, "lazy", PY) is None  # a test outside the hook's body
    assert served(CLICK.replace("def __getattr__", "def getattr_"), "BaseCommand", PY) is None
    method = "class A:\n    def __getattr__(self, name):\n        if name == 'x':\n            return 1\n"
    assert served(method, "x", PY) is None  # a class's __getattr__ serves attributes, not module names


def test_a_named_table_serves_its_keys_and_a_silent_branch_does_not_warn() -> None:
    text = (
        "import importlib\n\n"
        "_LAZY: dict[str, str] = {\n    'Schema': '.schema',\n    \"fields\": '.fields',\n}\n\n"
        "def __getattr__(attr):\n"
        "    if attr in _LAZY:\n"
        "        return importlib.import_module(_LAZY[attr], __name__)\n"
        "    raise AttributeError(attr)\n"
    )
    for name in ("Schema", "fields"):
        s = served(text, name, PY)
        assert s is not None, name
        assert not s.warns, name  # served lazily, no warning: it just works
    assert served(text, "schema", PY) is None  # a value of the table, not a key


def test_the_hook_names_are_data() -> None:
    assert "__getattr__" in hook_names()
    assert rules_for(Language.GO) is None  # no rules: nothing is served lazily


def test_a_hook_defined_under_a_module_level_condition_is_read() -> None:
    flask = (
        "import typing as t\n\n"
        "if not t.TYPE_CHECKING:\n\n"
        "    def __getattr__(name: str) -> t.Any:\n"
        "        if name == '__version__':\n"
        "            import warnings\n\n"
        "            warnings.warn(\n"
        "                \"The '__version__' attribute is deprecated and will be removed in\"\n"
        "                \" Flask 3.2. Use feature detection instead.\",\n"
        "                DeprecationWarning,\n"
        "            )\n"
        "            return importlib.metadata.version('flask')\n\n"
        "        raise AttributeError(name)\n\n"
        "def later(name):\n"
        "    return name == 'other'\n"
    )
    s = served(flask, "__version__", PY)
    assert s is not None
    assert (s.line, s.warns) == (5, True)
    assert "removed in Flask 3.2" in s.text  # the message's two literals joined
    assert served(flask, "other", PY) is None  # past the hook's body


def test_a_branch_that_only_raises_serves_nothing() -> None:
    text = (
        "def __getattr__(name):\n"
        "    if name == 'old':\n"
        "        raise AttributeError('old was deprecated and removed in 2.0; use new')\n"
        "    raise AttributeError(name)\n"
    )
    assert served(text, "old", PY) is None  # the name is gone, whatever the message says
