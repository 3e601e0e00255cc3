"""What a change to the code under a note is, said in words (pure: no I/O).

The one renderer of a change, shared by the CLI, the MCP bridge, the language server, the
hooks and the daemon's briefs. It reads the normalised signature texts the parser records
(whitespace collapsed, one space kept only between two identifier characters:
``def f(a:int,b=1)->int:``, ``func(s*Server)Start(ctx context.Context)error``,
``public String login(String email,String password)``, ``fetchUser(id:number):Promise<User>``)
for the 14 languages graphmem parses:

- ``parse_signature`` splits one into name, parameters (kind, default, annotation), return
  type and bases;
- ``signature_delta`` compares two: parameters added, removed, renamed, reordered, defaults
  and annotations changed, bases changed, and whether callers written against the old one break;
- ``spaced`` shows a normalised signature normally spaced;
- ``change_words`` / ``when_words`` / ``change_line`` say one ``StaleReason`` in one line:
  ``\\`crypto.py::hash_password\\`: parameter \\`pepper\\` added (optional), uncommitted``;
- ``history_words`` / ``history_line`` say one entry of a note's history.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Final

from graphmem.types import ChangeKind, HistoryEvent, HistoryKind, StaleReason

__all__ = [
    "MAX_LINE",
    "Param",
    "ParamKind",
    "ParsedSignature",
    "SignatureDelta",
    "caller_words",
    "change_line",
    "change_words",
    "group_end",
    "history_line",
    "history_words",
    "parse_signature",
    "reason_detail",
    "signature_delta",
    "spaced",
    "when_words",
]

#: The longest line ``change_line`` returns.
MAX_LINE: Final = 160


class ParamKind(str, Enum):
    """How a caller passes a parameter (Python's names; other languages map onto them)."""

    POSITIONAL_ONLY = "positional_only"
    NORMAL = "normal"
    VAR_POSITIONAL = "var_positional"  # *args, ...rest, String... xs, vararg, params T[]
    KEYWORD_ONLY = "keyword_only"  # after * in Python, name: in Ruby
    VAR_KEYWORD = "var_keyword"  # **kwargs


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: its name (without ``*``/``...``/``&`` markers, PHP keeps its ``$``),
    how it is passed, its default (``""``: none) and its annotation (``""``: none)."""

    name: str
    kind: ParamKind
    default: str = ""
    annotation: str = ""

    @property
    def required(self) -> bool:
        """Whether a caller must pass it: no default and not variadic."""
        return not self.default and self.kind in _FIXED


@dataclass(frozen=True, slots=True)
class ParsedSignature:
    """A normalised signature split up. ``keyword``: the defining word when there is one
    (``def``, ``class``, ``func``, ``fn``, ``fun``, ``function``, ``struct``, ``interface``,
    ...; ``""`` for a C-family or JavaScript method); ``receiver``: a Go method's receiver."""

    name: str
    params: tuple[Param, ...]
    returns: str
    bases: tuple[str, ...]
    keyword: str
    receiver: str = ""

    @property
    def is_type(self) -> bool:
        """Whether it is the head of a type (class, struct, interface, trait, ...)."""
        return self.keyword in _TYPE_KEYWORDS


@dataclass(frozen=True, slots=True)
class SignatureDelta:
    """How one signature differs from another, parameter by parameter (see ``signature_delta``)."""

    added: tuple[Param, ...] = ()
    removed: tuple[Param, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    reordered: bool = False
    defaults_changed: tuple[tuple[str, str, str], ...] = ()  # (param, old default, new default)
    annotations_changed: tuple[tuple[str, str, str], ...] = ()  # (param or "return", old, new)
    bases_changed: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    name_changed: tuple[str, str] | None = None
    #: (old, new) names of a parameter that was positional-only and is still passed by
    #: position: no caller wrote its name, so neither ``breaks_callers`` nor ``phrases`` counts it
    respelled: tuple[tuple[str, str], ...] = ()

    @property
    def breaks_callers(self) -> bool:
        """Whether a call written against the old signature may fail against the new one: a
        parameter removed or renamed, positional parameters reordered, a new required one,
        or the name changed."""
        return bool(
            self.removed
            or self.renamed
            or self.reordered
            or self.name_changed
            or any(p.required for p in self.added)
            or any(old and not new for _, old, new in self.defaults_changed)
        )

    @property
    def annotations_only(self) -> bool:
        """Whether only annotations (parameter types, return type) differ."""
        return bool(self.annotations_changed) and not (
            self.added
            or self.removed
            or self.renamed
            or self.reordered
            or self.defaults_changed
            or self.bases_changed
            or self.name_changed
        )

    def phrases(self, *, fold: bool = False) -> tuple[str, ...]:
        """Each difference in words: ``parameter `pepper` added (optional)``, ``return type
        `A` → `B```, ``base `object` removed``; empty when the parameters, return type and
        bases are the same. ``fold``: when there are more than one line holds and some are not
        annotations, the annotations' are one, ``annotations changed`` (what a caller must
        change is said, not crowded out by types: ``parameter `args` renamed to `param`,
        annotations changed``)."""
        return tuple(_phrase(subject, what, False) for subject, what in self._facts(fold))

    def dependency_phrases(self, *, fold: bool = False) -> tuple[str, ...]:
        """The same differences said of a dependency: ``parameter `x` was removed``."""
        return tuple(_phrase(subject, what, True) for subject, what in self._facts(fold))

    def _facts(self, fold: bool = False) -> list[tuple[str, str]]:
        params, typed, bases = self._parameter_facts(), self._annotation_facts(), self._base_facts()
        if fold and (params or bases) and len(typed) > 1 and len(params) + len(typed) + len(bases) > _MAX_PHRASES:
            return [*params, *bases, ("annotations", "@changed")]  # (said last)
        return [*params, *typed, *bases]

    def _parameter_facts(self) -> list[tuple[str, str]]:
        facts: list[tuple[str, str]] = []
        if self.name_changed:
            facts.append((f"name `{self.name_changed[0]}`", f"@changed to `{self.name_changed[1]}`"))
        facts.extend((f"parameter `{old}`", f"@renamed to `{new}`") for old, new in self.renamed)
        facts.extend((f"parameter `{p.name}`", "@removed") for p in self.removed)
        facts.extend((f"parameter `{p.name}`", f"@added ({_how(p)})") for p in self.added)
        if self.reordered:
            facts.append(("parameters", "@reordered"))
        for name, old, new in self.defaults_changed:
            if not old:
                facts.append((f"parameter `{name}`", f"@made optional (default `{new}`)"))
            elif not new:
                facts.append((f"parameter `{name}`", "@made required (no default)"))
            else:
                facts.append((f"default of `{name}`", f"`{old}` → `{new}`"))
        return facts

    def _annotation_facts(self) -> list[tuple[str, str]]:
        facts: list[tuple[str, str]] = []
        for name, old_type, new_type in self.annotations_changed:
            subject = "return type" if name == "return" else f"type of `{name}`"
            old, new = spaced(old_type) if old_type else "", spaced(new_type) if new_type else ""
            if len(old) > _MAX_TYPE or len(new) > _MAX_TYPE:  # too long to read in one line: say what changed
                facts.append((subject, "@added" if not old else "@removed" if not new else "@changed"))
            elif not old:
                facts.append((subject, f"`{new}` @added"))
            elif not new:
                facts.append((subject, f"`{old}` @removed"))
            else:
                facts.append((subject, f"`{old}` → `{new}`"))
        return facts

    def _base_facts(self) -> list[tuple[str, str]]:
        facts: list[tuple[str, str]] = []
        if self.bases_changed is not None:
            old_bases, new_bases = self.bases_changed
            gone = [b for b in old_bases if b not in new_bases]
            came = [b for b in new_bases if b not in old_bases]
            for b in list(gone):  # the same class, parameterised otherwise: one change
                twin = next((n for n in came if _base_name(n) == _base_name(b)), None)
                if twin is not None:
                    facts.append(("base", f"`{spaced(b)}` → `{spaced(twin)}`"))
                    gone.remove(b)
                    came.remove(twin)
            facts.extend((f"base `{spaced(b)}`", "@removed") for b in gone)
            facts.extend((f"base `{spaced(b)}`", "@added") for b in came)
            if set(old_bases) == set(new_bases):
                facts.append(("bases", "@reordered"))
        return facts


def _base_name(base: str) -> str:
    """A base class as named, without its type arguments (``MultiDict[str,FileStorage]``:
    ``MultiDict``)."""
    return re.split(r"[\[<(]", base, maxsplit=1)[0].strip()


#: the longest type shown in a change's words (longer ones: "type of `data` changed")
_MAX_TYPE: Final = 40


def _phrase(subject: str, what: str, passive: bool) -> str:
    """``subject what``; a ``what`` marked ``@`` is a participle: "was ..." when ``passive``."""
    if "@" not in what:
        return f"{subject} {what}"
    head, _, tail = what.partition("@")
    verb = ("was " if passive else "") + tail
    return f"{subject} {head}{verb}" if head else f"{subject} {verb}"


def _how(p: Param) -> str:
    if p.kind is ParamKind.VAR_POSITIONAL:
        return "variadic"
    if p.kind is ParamKind.VAR_KEYWORD:
        return "keyword arguments"
    return "optional" if p.default else "required"


_FIXED: Final = (ParamKind.POSITIONAL_ONLY, ParamKind.NORMAL, ParamKind.KEYWORD_ONLY)
_POSITIONAL: Final = (ParamKind.POSITIONAL_ONLY, ParamKind.NORMAL)
_TYPE_KEYWORDS: Final = frozenset(
    {"class", "interface", "struct", "enum", "trait", "module", "object", "record", "protocol", "namespace", "mod"}
    | {"union", "impl", "extension", "typedef"}
)
_FUNCTION_KEYWORDS: Final = ("def", "func", "fn", "fun", "function", "sub", "init", "constructor")
_MODIFIERS: Final = frozenset(
    [
        "public",
        "private",
        "protected",
        "internal",
        "fileprivate",
        "static",
        "abstract",
        "final",
        "async",
        "export",
        "default",
        "override",
        "virtual",
        "explicit",
        "inline",
        "open",
        "sealed",
        "data",
        "case",
        "pub",
        "unsafe",
        "extern",
        "partial",
        "readonly",
        "suspend",
        "operator",
        "infix",
        "tailrec",
        "mutating",
        "required",
        "convenience",
        "synchronized",
        "native",
        "implicit",
        "lazy",
        "constexpr",
        "annotation",
        "inner",
        "value",
        "const",
        "declare",
        "get",
        "set",
        "new",
        "local",
    ]
)
_IDENT: Final = re.compile(r"[A-Za-z_$~][\w$]*")
_DECORATOR: Final = re.compile(r"^(?:@[\w.$]+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*|\[[^\[\]]*\]\s*)+")
_QUOTES: Final = "\"'`"
#: Rust's ``'a``: a name after the quote, then what may follow a lifetime (not a closing quote:
#: ``'a'`` is a character literal)
_LIFETIME: Final = re.compile(r"'[A-Za-z_]\w*+(?=[\s,>:+)\][;{]|$)")
#: text that can hold lifetimes: a Rust item's head, or a reference or generic argument that is
#: one (``&'a``, ``<'a``, ``+'a``; a parameter list is scanned without its head). Elsewhere
#: ``'no-cors'`` and ``Literal['a b']`` are strings
_RUSTY: Final = re.compile(r"(?:^|[^\w$])(?:fn|impl|trait|struct|enum|union)(?![\w$])|[&<+]'[A-Za-z_]")


def _opens_literal(text: str, i: int) -> bool:
    """Whether the quote at ``i`` starts a string literal (a Rust lifetime does not)."""
    return text[i] != "'" or _LIFETIME.match(text, i) is None or _RUSTY.search(text) is None


def _scan(text: str, start: int = 0, *, angle: bool = False) -> Iterator[tuple[int, str, int]]:
    """Each character of ``text`` from ``start`` outside string literals, with the bracket depth
    around it (an opening bracket at the depth before it, a closing one at the depth after it);
    ``angle``: ``<``/``>`` are brackets too (not in ``->``, ``=>``, ``<=``, ``<<``)."""
    depth = 0
    quote = ""
    i = start
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in _QUOTES and _opens_literal(text, i):
            quote = ch
        elif ch in "([{" or (angle and ch == "<" and not _is_operator_lt(text, i)):
            yield i, ch, depth
            depth += 1
        elif ch in ")]}" or (angle and ch == ">" and not (i > 0 and text[i - 1] in "-=")):
            depth = max(0, depth - 1)
            yield i, ch, depth
        else:
            yield i, ch, depth
        i += 1


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at the one-character ``sep`` outside brackets (``<>`` included) and literals."""
    cuts = [i for i, ch, depth in _scan(text, angle=True) if ch == sep and depth == 0]
    bounds = [-1, *cuts, len(text)]
    return [text[a + 1 : b] for a, b in itertools.pairwise(bounds)]


def _is_operator_lt(text: str, i: int) -> bool:
    """Whether the ``<`` at ``i`` is an operator (``<=``, ``<<``), not a generic's bracket."""
    return text[i + 1 : i + 2] in ("=", "<") or (i > 0 and text[i - 1] == "<")


def group_end(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start`` (``len(text)`` when unclosed);
    string literals are not looked into."""
    return next((i for i, ch, depth in _scan(text, start) if ch in ")]}" and depth == 0), len(text))


def _split_default(p: str) -> tuple[str, str]:
    """``a:int=1`` -> (``a:int``, ``1``): the first top-level ``=`` that is not part of an operator."""
    for part_end in _equals(p):
        return p[:part_end].strip(), p[part_end + 1 :].strip()
    return p.strip(), ""


def _equals(p: str) -> list[int]:
    """The top-level ``=`` of ``p`` that are assignments (not ``==``, ``!=``, ``<=``, ``=>``, ``:=``)."""
    out: list[int] = []
    for i, ch, depth in _scan(p):
        if ch == "=" and depth == 0:
            before = p[i - 1] if i else ""
            after = p[i + 1] if i + 1 < len(p) else ""
            if before not in "=!<>:" and after not in "=>":
                out.append(i)
    return out


def _split_colon(p: str) -> tuple[str, str]:
    """``name:annotation`` at the first top-level single colon (not ``::``)."""
    for i, ch, depth in _scan(p, angle=True):
        if ch == ":" and depth == 0 and p[i + 1 : i + 2] != ":" and (i == 0 or p[i - 1] != ":"):
            return p[:i].strip(), p[i + 1 :].strip()
    return p.strip(), ""


def _strip_generic_tail(head: str) -> str:
    """``f<T>`` / ``Map[T any]`` -> ``f`` / ``Map``: a balanced bracket group ending the head."""
    head = head.rstrip()
    while head and head[-1] in ">]":
        opener = "<" if head[-1] == ">" else "["
        depth = 0
        for i in range(len(head) - 1, -1, -1):
            if head[i] in ">]":
                depth += 1
            elif head[i] in "<[":
                depth -= 1
                if depth == 0:
                    if head[i] != opener or i == 0:
                        return head
                    head = head[:i].rstrip()
                    break
        else:
            return head
    return head


def _words(text: str) -> list[str]:
    return _IDENT.findall(text)


def _strip_trailer(sig: str) -> tuple[str, bool]:
    """The signature without its trailing ``:`` (Python), ``;``, ``{`` or ``=`` (Scala),
    and whether it ended with a Python-style ``:``."""
    s = sig.strip()
    colon = False
    while s and s[-1] in ";{":
        s = s[:-1].rstrip()
    if s.endswith(":") and not s.endswith("::"):
        s, colon = s[:-1].rstrip(), True
    elif s.endswith("=") and not s.endswith(("==", "!=", "<=", ">=")):
        s = s[:-1].rstrip()
    return s, colon


_TYPE_HEAD: Final = re.compile(
    r"^((?:[\w$]+\s+)*?)(" + "|".join(sorted(_TYPE_KEYWORDS, key=len, reverse=True)) + r")\b"
)
_GO_TYPE: Final = re.compile(r"^([A-Za-z_][\w]*)\s+(struct|interface)\s*$")
_C_RETURN: Final = re.compile(r"^\s*[\w$]+\s*(?:[*&]+\s*|\s+)[\w$]+\s*\(")
_ARROW: Final = re.compile(r"^([\w$.]+)\s*:?=\s*(?:async\s*)?(func\b|function\b)?\s*(?=\(|[\w$]+\s*=>)")


#: Signatures whose parse is kept (``parse_signature``): a knowledge pass grades the same few
#: signatures thousands of times (attrs' docs: 11,843 parses of 25 signatures, 6.9 s)
PARSED_KEPT: Final = 4096


@lru_cache(maxsize=PARSED_KEPT)
def parse_signature(sig: str) -> ParsedSignature | None:
    """The normalised signature ``sig`` split up; None for an empty text. Pure, and its
    result immutable: the last ``PARSED_KEPT`` signatures' parses are kept."""
    text = _DECORATOR.sub("", sig.strip())
    if not text:
        return None
    text, colon = _strip_trailer(text)
    go = _GO_TYPE.match(text)
    if go is not None:
        return ParsedSignature(go.group(1), (), "", (), go.group(2))
    head = _TYPE_HEAD.match(text)
    modified = head is not None and all(w in _MODIFIERS or w == "typedef" for w in _words(head.group(1)))
    if head is not None and modified and not _C_RETURN.match(text[head.end() :]):  # not `struct cart*f(...)`
        return _type_head(text[head.end() :], head.group(2), colon)
    return _callable(text, colon)


def _type_head(rest: str, keyword: str, colon: bool) -> ParsedSignature:
    """A class/struct/interface/... head: its name, primary-constructor parameters, bases."""
    rest = rest.strip()
    m = re.match(r"[\w$]+(?:::[\w$]+)*", rest)
    name = m.group(0) if m else ""
    rest = rest[m.end() :] if m else rest
    if rest.startswith("<") and keyword == "class" and ">" not in rest:  # Ruby: class A<B
        return ParsedSignature(name, (), "", (rest[1:].strip(),), keyword)
    if rest.startswith("<") or rest.startswith("["):  # generics
        end = _bracket_end(rest, 0)
        rest = rest[end + 1 :]
    params: tuple[Param, ...] = ()
    bases: list[str] = []
    if rest.startswith("("):
        end = group_end(rest, 0)
        inner = rest[1:end]
        rest = rest[end + 1 :]
        if colon:  # Python: class A(B, C):
            bases = [b.strip() for b in _split_top(inner, ",") if b.strip()]
        else:  # Kotlin / Scala / C# record primary constructor
            params = _params(inner, "colon" if ":" in inner else "c", "")
    rest = rest.strip()
    rest = re.sub(r"\bwhere\b.*$", "", rest).strip()
    if rest.startswith(":"):
        rest = rest[1:]
    for part in re.split(r"\b(?:extends|implements|with)\b", rest):
        for b in _split_top(part, ","):
            b = re.sub(r"^(?:(?:public|private|protected|virtual)\s+)+", "", b.strip())
            b = re.sub(r"\(.*\)$", "", b).strip()
            if b:
                bases.append(b)
    return ParsedSignature(name, params, "", tuple(bases), keyword)


def _bracket_end(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "<[":
            depth += 1
        elif text[i] in ">]" and not (text[i] == ">" and i and text[i - 1] in "-="):
            depth -= 1
            if depth == 0:
                return i
    return len(text) - 1


def _callable(text: str, colon: bool) -> ParsedSignature:
    """A function/method/constructor head."""
    receiver = ""
    keyword = ""
    arrow = _ARROW.match(text)
    if arrow is not None:  # promote=(user)=> / payload:=func()[]byte / f=async x=>
        name = arrow.group(1).rsplit(".", 1)[-1]
        keyword = (arrow.group(2) or "").strip()
        rest = text[arrow.end() :]
        if not rest.startswith("("):  # x=>...: one bare parameter
            bare = rest.split("=>", 1)[0].strip()
            return ParsedSignature(name, (Param(bare, ParamKind.NORMAL),), "", (), keyword)
        return _finish(name, keyword, "", rest, "", colon)
    if text.startswith("func(") or text.startswith("func ("):  # Go method: receiver first
        start = text.index("(")
        end = group_end(text, start)
        receiver = text[start + 1 : end].strip()
        text = "func " + text[end + 1 :].lstrip()
    start = text.find("(")
    head = text if start < 0 else text[:start]
    head_words = _words(_strip_generic_tail(head))
    for w in head_words:
        if w in _FUNCTION_KEYWORDS and w not in ("init", "constructor"):
            keyword = w
            break
    if start < 0:  # Ruby `def name` / Scala `def id:String` / a bare name
        if text.startswith(":"):  # Ruby attr `:price`
            return ParsedSignature(text[1:], (), "", (), keyword)
        name_part, returns = _split_colon(text)
        words = _words(name_part)
        name = words[-1] if words else name_part
        return ParsedSignature(name, (), returns, (), keyword, receiver)
    stem = _strip_generic_tail(head)
    m = re.search(r"(~?[\w$]+|operator\W+)\s*$", stem)
    name = m.group(1) if m else stem.strip()
    prefix = stem[: m.start()] if m else ""
    if "." in name:
        name = name.rsplit(".", 1)[-1]
    prefix = re.sub(r"(?:[\w$]+(?:::|\.))+$", "", prefix.rstrip()).rstrip()  # Store::open, Cart.discounted
    return _finish(name, keyword, prefix, text[start:], receiver, colon)


def _finish(name: str, keyword: str, prefix: str, rest: str, receiver: str, colon: bool) -> ParsedSignature:
    """Parameters and return type from ``rest`` (which starts at the parameter list's ``(``)."""
    end = group_end(rest, 0)
    inner = rest[1:end]
    tail = rest[end + 1 :].strip()
    parts = [p.strip() for p in _split_top(inner, ",") if p.strip()]
    prefix_words = [w for w in _words(prefix) if w not in _MODIFIERS and w != keyword and w != "#define"]
    has_colon = any(_split_colon(p)[1] or p.rstrip().endswith(":") for p in parts)
    if prefix.lstrip().startswith("#"):  # a C macro: #define MAX(a,b)
        return ParsedSignature(name, tuple(Param(p, ParamKind.NORMAL) for p in parts), "", (), "#define")
    style = _style(keyword, prefix_words, parts, has_colon, tail, colon, receiver)
    params = _params(inner, style, keyword)
    returns = _returns(style, tail, prefix, keyword)
    return ParsedSignature(name, params, returns, (), keyword, receiver)


def _style(
    keyword: str, prefix_words: list[str], parts: list[str], has_colon: bool, tail: str, colon: bool, receiver: str
) -> str:
    """How the parameters are written: python, ruby, php, go, colon (``name:Type``) or c (``Type name``)."""
    if any("$" in p for p in parts):
        return "php"
    if keyword == "def":
        if colon:
            return "python"
        if not tail:
            return "ruby"
        return "colon"
    if keyword == "func" and (receiver or not has_colon) and "->" not in tail:
        return "go"
    if has_colon or keyword in ("fn", "fun", "function", "func"):
        return "colon"
    bare = not keyword and not prefix_words and not has_colon
    if bare and tail and not tail.startswith((":", "=", "->")) and parts and all(" " in p for p in parts):
        return "go"  # a Go interface method: Describe(x int)string
    heads = [_split_default(p)[0] for p in parts]
    c_like = bool(prefix_words) or any(re.search(r"[\w\]>*&]\s*[\s*&]\s*[\w$]", h) for h in heads)
    return "c" if c_like else "colon"


_C_QUALIFIERS: Final = frozenset({"const", "override", "noexcept", "final", "volatile", "mutable", "throws"})


def _returns(style: str, tail: str, prefix: str, keyword: str) -> str:
    tail = re.sub(r"\s*\bwhere\b.*$", "", tail).strip()
    if "->" in tail:
        return tail.split("->", 1)[1].strip().rstrip(":").strip()
    if tail.startswith(":") and style != "c":
        out = tail[1:].strip()
        return out[:-2].strip() if out.endswith("=>") else out
    if style == "go" or (tail and not prefix and tail.split()[0] not in _C_QUALIFIERS and tail[0] not in ":="):
        return tail
    if style == "c":
        words = [w for w in re.split(r"\s+", prefix.strip()) if w and w not in _MODIFIERS - {"const"}]
        return " ".join(words).strip()
    return ""


_PY_MARKERS: Final = ("*", "/")


def _params(inner: str, style: str, keyword: str) -> tuple[Param, ...]:
    parts = [p.strip() for p in _split_top(inner, ",") if p.strip()]
    if style == "c" and parts == ["void"]:
        return ()
    if style == "go":
        return _go_params(parts)
    out: list[Param] = []
    keyword_only = False
    for p in parts:
        if style == "python" and p in _PY_MARKERS:
            if p == "*":
                keyword_only = True
            else:
                out = [Param(q.name, ParamKind.POSITIONAL_ONLY, q.default, q.annotation) for q in out]
            continue
        param = {"php": _php_param, "c": _c_param, "ruby": _ruby_param}.get(style, _colon_param)(p)
        if keyword_only and param.kind is ParamKind.NORMAL:
            param = Param(param.name, ParamKind.KEYWORD_ONLY, param.default, param.annotation)
        if style == "python" and param.kind is ParamKind.VAR_POSITIONAL:
            keyword_only = True
        out.append(param)
    if style == "python" and "/" not in parts:
        out = _dunder_positional(out)
    return tuple(out)


def _dunder_positional(params: list[Param]) -> list[Param]:
    """A Python signature without ``/``, its leading parameters named ``__x`` (not ``__x__``)
    positional-only, as PEP 484 has type checkers read them (``def validate(self, __obj)``
    is ``def validate(self, obj, /)``), a method's ``self``/``cls`` with them."""
    first = 1 if params and params[0].name in ("self", "cls") and params[0].kind is ParamKind.NORMAL else 0
    end = first
    while end < len(params) and params[end].kind is ParamKind.NORMAL and _dunder(params[end].name):
        end += 1
    if end == first:
        return params
    lead = [Param(q.name, ParamKind.POSITIONAL_ONLY, q.default, q.annotation) for q in params[:end]]
    return [*lead, *params[end:]]


def _dunder(name: str) -> bool:
    """``__x``: a positional-only name by PEP 484's convention (``__x__`` is not one)."""
    return name.startswith("__") and not name.endswith("__") and len(name) > 2


def _variadic(name: str) -> tuple[str, ParamKind]:
    if name.startswith("**"):
        return name[2:], ParamKind.VAR_KEYWORD
    if name.startswith("*"):
        return name[1:], ParamKind.VAR_POSITIONAL
    if name.startswith("..."):
        return name[3:], ParamKind.VAR_POSITIONAL
    return name, ParamKind.NORMAL


_PARAM_MODIFIERS: Final = frozenset(
    [
        "private",
        "public",
        "protected",
        "readonly",
        "val",
        "var",
        "override",
        "mut",
        "vararg",
        "internal",
        "inout",
        "ref",
        "out",
        "in",
    ]
)


def _colon_param(p: str) -> Param:
    """``name:Type=default`` (Python, TypeScript, Rust, Kotlin, Scala, Swift; names only in JS)."""
    head, default = _split_default(p)
    name_part, annotation = _split_colon(head)
    words = name_part.split()
    vararg = "vararg" in words
    words = [w for w in words if w not in _PARAM_MODIFIERS] or words[-1:]
    name = words[-1] if words else name_part
    name = name.lstrip("&").strip()
    if name.startswith("&"):
        name = name[1:]
    name, kind = _variadic(name)
    if vararg or annotation.endswith("...") or (annotation.endswith("*") and not annotation.endswith("**")):
        kind = ParamKind.VAR_POSITIONAL
    if name.endswith("?"):
        name = name[:-1]
        default = default or "undefined"
    return Param(name, kind, default, annotation)


def _ruby_param(p: str) -> Param:
    """``a``, ``a=1``, ``*rest``, ``**opts``, ``&block``, ``key:``, ``key:1``."""
    name, default = _split_default(p)
    if ":" in name:
        key, _, value = p.partition(":")
        return Param(key.strip(), ParamKind.KEYWORD_ONLY, value.strip())
    if name.startswith("&"):
        return Param(name[1:], ParamKind.NORMAL, default or "nil")  # a block: nil when not given
    name, kind = _variadic(name)
    return Param(name, kind, default)


def _php_param(p: str) -> Param:
    """``[modifiers] [Type] [&][...]$name[=default]``."""
    head, default = _split_default(p)
    m = re.search(r"(&?)(\.\.\.)?(\$[\w]+)\s*$", head)
    if m is None:
        return Param(head, ParamKind.NORMAL, default)
    annotation = " ".join(w for w in head[: m.start()].split() if w not in _PARAM_MODIFIERS)
    kind = ParamKind.VAR_POSITIONAL if m.group(2) else ParamKind.NORMAL
    return Param(m.group(3), kind, default, annotation)


def _c_param(p: str) -> Param:
    """``[modifiers] Type name[=default]`` (C, C++, Java, C#), ``Type...name``, ``params T[]name``."""
    head, default = _split_default(p)
    kind = ParamKind.NORMAL
    if head.startswith("params "):
        head, kind = head[len("params ") :], ParamKind.VAR_POSITIONAL
    if head == "...":
        return Param("...", ParamKind.VAR_POSITIONAL)
    if "..." in head:
        head, kind = head.replace("...", " "), ParamKind.VAR_POSITIONAL
    m = re.search(r"([A-Za-z_$][\w$]*)\s*((?:\[\s*\w*\s*\])*)\s*$", head)
    if m is None or not head[: m.start()].strip():
        return Param("", kind, default, head.strip())
    annotation = (head[: m.start()].strip() + m.group(2)).strip()
    annotation = " ".join(w for w in annotation.split() if w not in ("final",))
    return Param(m.group(1), kind, default, annotation)


def _go_params(parts: list[str]) -> tuple[Param, ...]:
    """Go: ``a, b string`` share the type that follows; unnamed lists are types only."""
    named = any(
        " " in p.strip() or (re.match(r"^\w+(?:\.\.\.|\[\]|\*)", p) and not p.startswith("map[")) for p in parts
    )
    if not named:
        return tuple(Param("", ParamKind.NORMAL, "", p) for p in parts)
    out: list[Param] = []
    pending = ""
    for p in reversed(parts):
        p = p.strip()
        m = re.match(r"^([\w]+)\s*(\.\.\.)?\s*(.*)$", p)
        if m is None:
            out.append(Param(p, ParamKind.NORMAL, "", pending))
            continue
        name, dots, typ = m.groups()
        if typ or dots:
            pending = typ
        kind = ParamKind.VAR_POSITIONAL if dots else ParamKind.NORMAL
        out.append(Param(name, kind, "", typ or pending))
    return tuple(reversed(out))


def signature_delta(old: str, new: str) -> SignatureDelta:
    """How ``new`` differs from ``old``, both normalised signature texts. A parameter at the
    same position whose old name is gone and whose new name is new is a rename — unless it was
    positional-only and is still passed by position (no caller could name it: the same
    parameter, its type and default compared, its name no change: ``respelled``); the kept
    positional parameters in another order are a reorder. Texts that cannot be parsed give an
    empty delta."""
    a, b = parse_signature(old), parse_signature(new)
    if a is None or b is None:
        return SignatureDelta()
    old_names = [p.name for p in a.params]
    new_names = [p.name for p in b.params]
    renamed: list[tuple[str, str]] = []
    respelled: list[tuple[str, str]] = []  # positional-only before, positional still: no caller named it
    renamed_new: set[str] = set()
    renamed_old: set[str] = set()
    for p, q in zip(a.params, b.params, strict=False):
        if p.name != q.name and p.name not in new_names and q.name not in old_names and p.name and q.name:
            unnamed = p.kind is ParamKind.POSITIONAL_ONLY and q.kind in _POSITIONAL
            (respelled if unnamed else renamed).append((p.name, q.name))
            renamed_old.add(p.name)
            renamed_new.add(q.name)
    added = tuple(q for q in b.params if q.name not in old_names and q.name not in renamed_new)
    removed = tuple(p for p in a.params if p.name not in new_names and p.name not in renamed_old)
    by_new = {q.name: q for q in b.params}
    by_new.update({old_name: by_new[new_name] for old_name, new_name in (*renamed, *respelled)})
    kept = [p for p in a.params if p.name in by_new]
    positional_old = [p.name for p in kept if p.kind in _POSITIONAL]
    order_new = {q.name: i for i, q in enumerate(b.params)}
    renamed_map = dict((*renamed, *respelled))
    positions = [order_new[renamed_map.get(n, n)] for n in positional_old]
    reordered = positions != sorted(positions)
    defaults = tuple(
        (by_new[p.name].name, p.default, by_new[p.name].default) for p in kept if p.default != by_new[p.name].default
    )
    annotations = [
        (by_new[p.name].name, p.annotation, by_new[p.name].annotation)
        for p in kept
        if p.annotation != by_new[p.name].annotation
    ]
    if a.returns != b.returns:
        annotations.append(("return", a.returns, b.returns))
    bases = (a.bases, b.bases) if a.bases != b.bases else None
    name = (a.name, b.name) if a.name != b.name else None
    return SignatureDelta(
        added, removed, tuple(renamed), reordered, defaults, tuple(annotations), bases, name, tuple(respelled)
    )


# -- spacing ---------------------------------------------------------------------------------

_WORD_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
_AFTER_COLON: Final = frozenset(_WORD_CHARS | set(")]>?}'\"`"))


def spaced(sig: str) -> str:
    """A normalised signature shown normally spaced, without its trailing ``:``/``;``/``{``:
    ``def hash_password(password:str,pepper:str="")->str:`` ->
    ``def hash_password(password: str, pepper: str = "") -> str``."""
    text, _ = _strip_trailer(sig)
    parsed = parse_signature(sig)
    keyword = parsed.keyword if parsed is not None else ""
    go = keyword == "func" and parsed is not None and all(":" not in p.annotation for p in parsed.params)
    go = go and "->" not in text
    ruby_base = keyword == "class" and re.match(r"^[^<>]*class\s+[\w:]+<[^>]*$", text) is not None
    out: list[str] = []
    quote = ""
    depth = 0
    annotated = False  # the current parameter has a ``:`` annotation
    opened: list[bool] = []  # for each open ``[``: preceded by an identifier (``byte[]``)
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        prev = out[-1][-1] if out and out[-1] else ""
        nxt = text[i + 1] if i + 1 < n else ""
        if quote:
            out.append(ch)
            if ch == "\\" and nxt:
                out.append(nxt)
                i += 1
            elif ch == quote:
                quote = ""
            i += 1
            continue
        if ch in _QUOTES and _opens_literal(text, i):
            quote = ch
            out.append(ch)
        elif ch == ",":
            at_parameter = depth <= 1 and not opened  # not a comma inside ``Mapping[str, Any]``
            if at_parameter and nxt == ")":  # a trailing comma: nothing to show on one line
                pass
            else:
                out.append(", " if nxt and nxt not in ")]" else ",")
            if at_parameter:
                annotated = False
        elif ch == ";":
            out.append("; " if nxt and nxt not in ")}" else ";")
            annotated = False
        elif text.startswith("->", i) or text.startswith("=>", i) or text.startswith(":=", i):
            out.append(f" {text[i : i + 2]} ")
            i += 2
            continue
        elif text.startswith("::", i):
            out.append("::")
            i += 2
            continue
        elif ch == ":":
            annotated = depth > 0
            out.append(": " if prev in _AFTER_COLON and nxt else ":")
        elif ch == "=" and nxt != "=" and prev not in "=!<>":
            plain = keyword == "def" and not annotated and depth > 0
            out.append("=" if plain else " = ")
        elif ch == "|" and nxt != "|" and prev != "|":
            out.append(" | ")
        elif ch in "*&" and prev in _WORD_CHARS and (nxt in _WORD_CHARS or nxt in "*&(") and depth >= 0:
            out.append(" " + ch)
        elif ch == "~" and prev in _WORD_CHARS:
            out.append(" ~")
        elif ch == "<" and ruby_base:
            out.append(" < ")
        elif ch == "(":
            depth += 1
            if go and ((prev in _WORD_CHARS and text[:i].rstrip() == "func") or prev == ")"):
                out.append(" (")
            else:
                out.append("(")
            annotated = False
        elif ch == ")":
            depth -= 1
            out.append(")")
            if nxt and (nxt in _WORD_CHARS or nxt in "*" or (go and nxt in "[(")):
                out.append(" ")
        elif ch == "[":
            empty = nxt == "]"
            opened.append(prev in _WORD_CHARS or prev == "]")
            if go and empty and prev in _WORD_CHARS:
                out.append(" [")
            else:
                out.append("[")
        elif ch == "]":
            after_word = opened.pop() if opened else False
            out.append("]")
            if nxt in _WORD_CHARS and after_word and not go:
                out.append(" ")
        elif ch == " ":
            if prev != " ":
                out.append(" ")
        else:
            out.append(ch)
        i += 1
    return re.sub(r" {2,}", " ", "".join(out)).strip()


# -- one change in words ----------------------------------------------------------------------

_VIA: Final = {"CALLS": "calls", "INHERITS": "inherits from", "IMPORTS": "imports the file of"}
_MAX_PHRASES: Final = 3


def _joined(phrases: tuple[str, ...]) -> str:
    if len(phrases) <= _MAX_PHRASES:
        return ", ".join(phrases)
    more = len(phrases) - _MAX_PHRASES
    return ", ".join(phrases[:_MAX_PHRASES]) + f" and {more} more change{'s' if more != 1 else ''}"


def _short_ref(ref: str, like: str) -> str:
    """``ref`` without its path when it is in the same file as ``like``."""
    path, sep, name = ref.partition("::")
    return name if sep and like.partition("::")[0] == path else ref


def change_words(reason: StaleReason) -> str:
    """What changed, in words: ``removed``, ``renamed to `FakeTransport```, ``body changed: 3 lines``
    (``body changed`` when the count is not known),
    ``parameter `pepper` added (optional)`` (``…, body changed`` when the body changed too),
    ``annotations changed: return type `A` → `B```,
    ``calls `b.py::g`, whose parameter `x` was removed``, ``deprecated: `click.__getattr__`
    still serves it, with a warning``."""
    change = reason.change
    file_anchor = "::" not in reason.anchor_ref
    if change is ChangeKind.REMOVED:
        return "file removed" if file_anchor else "removed"
    if change is ChangeKind.RENAMED:
        target = reason.new_ref or "?"
        moved = target.partition("::")[0] != reason.anchor_ref.partition("::")[0]
        return f"moved to `{target}`" if moved else f"renamed to `{_short_ref(target, reason.anchor_ref)}`"
    if change is ChangeKind.BODY_CHANGED:
        if file_anchor:
            return "definitions in the file changed"
        n = reason.lines_changed
        return f"body changed: {n} line{'s' if n != 1 else ''}" if n > 0 else "body changed"
    if change is ChangeKind.ADDED:
        return "added"
    if change is ChangeKind.DEPRECATED:
        return f"deprecated: `{reason.served_by or '?'}` still serves it, with a warning"
    if change is ChangeKind.DEPENDENCY_CHANGED:
        return _dependency_words(reason)
    delta = signature_delta(reason.old_signature, reason.new_signature)
    phrases = delta.phrases(fold=True)
    if change is ChangeKind.ANNOTATIONS_CHANGED:
        return "annotations changed: " + _joined(phrases) if phrases else "annotations changed"
    body = ", body changed" if reason.body_changed else ""
    if phrases:
        return _joined(phrases) + body
    if reason.new_signature:
        return f"signature changed to `{spaced(reason.new_signature)}`{body}"
    return f"signature changed{body}"


def _dependency_words(reason: StaleReason) -> str:
    via = _VIA.get(reason.via.upper(), "depends on")
    dep = reason.dependency_ref or "?"
    away = f" ({reason.dependency_hops} hops away)" if reason.dependency_hops > 1 else ""
    if reason.dependency_removed:
        return f"{via} `{dep}`{away}, which was removed"
    if not reason.new_signature:
        return f"{via} `{dep}`{away}, whose signature changed"
    delta = signature_delta(reason.old_signature, reason.new_signature)
    phrases = delta.dependency_phrases(fold=True)
    what = _joined(phrases) if phrases else "signature changed"
    defaults = delta.defaults_changed
    only_defaults = bool(defaults) and len(phrases) == len(defaults) and all(old and new for _, old, new in defaults)
    if only_defaults and len(defaults) > 1:
        what = "defaults changed: " + ", ".join(f"`{name}` `{old}` → `{new}`" for name, old, new in defaults)
    elif only_defaults and not reason.caller_omits:
        name, old, new = defaults[0]
        what = f"default of `{name}` changed: `{old}` → `{new}`"
    elif only_defaults:
        _, old, new = defaults[0]
        what = f"default changed: `{old}` → `{new}`"
    if not reason.caller_omits:
        return f"{via} `{dep}`{away}, whose {what}"
    # a changed default this caller leaves out (or may): said first, before the long part
    names = _names(reason.caller_omits)
    how = f"with `*`/`**` arguments (maybe without {names})" if reason.caller_starred else f"without {names}"
    return f"{via} `{dep}`{away} {how}, whose {what}"


def _names(names: tuple[str, ...]) -> str:
    return ", ".join(f"`{n}`" for n in names)


def caller_words(reason: StaleReason) -> str:
    """How the anchor, a direct caller, sees a changed default of its dependency (the reason's
    caller fields): ``omits `timeout```, ``may pass `timeout` in `*`/`**` arguments``; ""
    when the reason is not about one."""
    if not reason.caller_omits:
        return ""
    names = _names(reason.caller_omits)
    return f"may pass {names} in `*`/`**` arguments" if reason.caller_starred else f"omits {names}"


def reason_detail(reason: StaleReason) -> str:
    """The reason's sentence in full: its ``detail`` and, for a changed default's caller, how
    it sees it (``…, whose signature changed; this caller omits `timeout```)."""
    caller = caller_words(reason)
    return f"{reason.detail}; this caller {caller}" if caller else reason.detail


def when_words(commit: str, uncommitted: bool) -> str:
    """``uncommitted``, ``in 1a2b3c4`` (the commit that made the change), or ``""`` when unknown."""
    if uncommitted:
        return "uncommitted"
    return f"in {commit[:7]}" if commit else ""


def change_line(reason: StaleReason) -> str:
    """One change in one line of at most ``MAX_LINE`` characters:
    ``\\`crypto.py::hash_password\\`: parameter \\`pepper\\` added (optional), uncommitted``."""
    when = when_words(reason.commit, reason.uncommitted)
    suffix = f", {when}" if when else ""
    head = f"`{reason.anchor_ref}`: "
    words = change_words(reason)
    line = head + words + suffix
    if len(line) <= MAX_LINE:
        return line
    room = MAX_LINE - len(head) - len(suffix) - 1
    if room < 20:  # a very long ref: shorten the ref instead
        return (line[: MAX_LINE - 1] + "…") if len(line) > MAX_LINE else line
    return head + words[:room].rstrip() + "…" + suffix


_HISTORY_WORDS: Final = {
    HistoryKind.CREATED: "created",
    HistoryKind.CONFIRMED: "confirmed still true",
    HistoryKind.EDITED: "edited",
    HistoryKind.SUPERSEDED: "superseded",
    HistoryKind.REANCHORED: "re-anchored",
    HistoryKind.ARCHIVED: "archived",
    HistoryKind.STALE: "went stale",
    HistoryKind.SUSPECT: "became suspect",
    HistoryKind.FRESH: "fresh again (the code is back as anchored)",
    HistoryKind.DELETED: "deleted",
}


def history_words(e: HistoryEvent) -> str:
    """What one history entry says happened, without who and when: ``created (supersedes
    3f…)``, ``superseded by 9a… (edited)``, ``edited: text``, ``went stale: `a.py::f`: removed``."""
    words = _HISTORY_WORDS[e.kind]
    if e.kind is HistoryKind.SUPERSEDED:
        by = f" by {e.related}" if e.related else ""
        return f"{words}{by}" + (f" ({e.detail})" if e.detail else "")
    if e.kind is HistoryKind.CREATED:
        return f"{words} ({e.detail})" if e.detail else words
    return f"{words}: {e.detail}" if e.detail else words


def history_line(e: HistoryEvent, when: str) -> str:
    """One history entry in one line, ``when`` already formatted: ``2026-11-29 05:10  went
    stale: `a.py::f`: removed  by graphmem  at 1a2b3c4``."""
    who = f"  by {e.by}" if e.by else ""
    at = f"  at {e.commit[:7]}" if e.commit else ""
    return f"{when}  {history_words(e)}{who}{at}"
