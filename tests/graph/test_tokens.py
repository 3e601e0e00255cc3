"""Identifier-aware tokenization (pure): code names and prose split into the same terms."""

from __future__ import annotations

import pytest
from graphmemd.graph.text_index import TextIndex
from graphmemd.graph.tokens import split_words, terms_of


@pytest.mark.parametrize(
    ("part", "words"),
    [
        ("getUserById", ["get", "User", "By", "Id"]),
        ("HTTPServer", ["HTTP", "Server"]),
        ("parseHTTPResponse2xx", ["parse", "HTTP", "Response", "2", "xx"]),
        ("utf8Codec", ["utf", "8", "Codec"]),
        ("IOError", ["IO", "Error"]),
        ("ABC", ["ABC"]),
        ("lower", ["lower"]),
        ("ÄnderungsDatum", ["Änderungs", "Datum"]),
        ("", []),
    ],
)
def test_split_words_at_case_and_digit_changes(part: str, words: list[str]) -> None:
    assert split_words(part) == words


def test_snake_and_camel_case_give_the_same_compound() -> None:
    assert terms_of("get_user_by_id") == ["getuserbyid", "get", "user", "id"]
    assert terms_of("getUserById") == ["getuserbyid", "get", "user", "id"]
    assert terms_of("GetUserByID")[0] == "getuserbyid"
    assert terms_of("parse_args") == ["parseargs", "pars", "arg"]
    assert terms_of("__init__") == ["init"]  # one word: no compound, underscores are not words


def test_dotted_paths_file_names_and_references_split_into_their_parts() -> None:
    assert terms_of("click.core.Command.invoke") == ["click", "core", "command", "invok"]
    assert terms_of("src/click/_termui_impl.py") == ["src", "click", "termuiimpl", "termui", "impl", "py"]
    assert terms_of("app/auth/service.py::AuthService.login") == [
        "app", "auth", "servic", "py", "authservice", "auth", "servic", "login"]  # fmt: skip
    assert terms_of("app/HTTPServer.py") == ["app", "httpserver", "http", "server", "py"]


def test_prose_is_stemmed_without_function_words_and_numbers() -> None:
    assert terms_of("Why does the connection pool retry?") == ["connect", "pool", "retri"]
    assert terms_of("Fixed parsing of 3 options") == ["fix", "pars", "option"]
    assert terms_of("") == []
    assert terms_of("the a of 42") == []


def test_prose_finds_identifiers_and_an_exact_name_beats_its_words_apart() -> None:
    t = TextIndex()
    t.put("r:a.py", "r", "a.py", [("exact", "get_user_by_id"), ("scattered", "get_user_name_by_account_id")])
    t.put("r:b.py", "r", "b.py", [("camel", "loadUserById")])
    hits = dict(t.search("getUserById", 10))
    assert hits["exact"] > hits["scattered"] > 0  # the compound matches only the exact name
    assert "camel" in hits  # user, by id: the words still match across conventions
    assert t.search("user parsing", 10)[0][0] in {"exact", "scattered", "camel"}
