"""The one renderer of a change: signature parsing, deltas, spacing and one-line reasons."""

from __future__ import annotations

from dataclasses import replace

import pytest
from graphmem.changes import (
    MAX_LINE,
    Param,
    ParamKind,
    caller_words,
    change_line,
    change_words,
    parse_signature,
    reason_detail,
    signature_delta,
    spaced,
    when_words,
)
from graphmem.types import ChangeKind, StaleReason

REF = "app/auth/crypto.py::hash_password"
OLD = "def hash_password(password:str)->str:"
NEW = 'def hash_password(password:str,pepper:str="")->str:'
SHA = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"


def _reason(change: ChangeKind, **kw: object) -> StaleReason:
    return StaleReason(str(kw.pop("anchor_ref", REF)), change, 100.0, **kw)  # type: ignore[arg-type]


# -- golden lines ------------------------------------------------------------------------------


def test_removed() -> None:
    assert change_line(_reason(ChangeKind.REMOVED, commit=SHA)) == f"`{REF}`: removed, in 1a2b3c4"


def test_renamed() -> None:
    r = _reason(
        ChangeKind.RENAMED,
        anchor_ref="tests/fakes.py::MockTransport",
        new_ref="tests/fakes.py::FakeTransport",
        commit=SHA,
    )
    assert change_line(r) == "`tests/fakes.py::MockTransport`: renamed to `FakeTransport`, in 1a2b3c4"
    moved = _reason(ChangeKind.RENAMED, new_ref="app/auth/hashing.py::hash_password", commit=SHA)
    assert change_words(moved) == "moved to `app/auth/hashing.py::hash_password`"


def test_signature_changed_uncommitted() -> None:
    r = _reason(ChangeKind.SIGNATURE_CHANGED, old_signature=OLD, new_signature=NEW, commit=SHA, uncommitted=True)
    assert change_line(r) == f"`{REF}`: parameter `pepper` added (optional), uncommitted"


def test_a_signature_change_says_when_the_body_changed_too() -> None:
    r = _reason(ChangeKind.SIGNATURE_CHANGED, old_signature=OLD, new_signature=NEW, commit=SHA, body_changed=True)
    assert change_line(r) == f"`{REF}`: parameter `pepper` added (optional), body changed, in 1a2b3c4"
    unnamed = _reason(ChangeKind.SIGNATURE_CHANGED, new_signature="async def f(a)", body_changed=True)
    assert change_words(unnamed) == "signature changed to `async def f(a)`, body changed"


def test_signature_changed_in_a_commit() -> None:
    r = _reason(
        ChangeKind.SIGNATURE_CHANGED,
        old_signature="def get(url,params=None,allow_redirects=True,**kwargs):",
        new_signature="def get(url,params=None,**kwargs):",
        commit=SHA,
    )
    assert change_line(r) == f"`{REF}`: parameter `allow_redirects` removed, in 1a2b3c4"


def test_body_changed() -> None:
    assert change_line(_reason(ChangeKind.BODY_CHANGED, commit=SHA)) == f"`{REF}`: body changed, in 1a2b3c4"
    three = _reason(ChangeKind.BODY_CHANGED, commit=SHA, lines_changed=3)
    assert change_line(three) == f"`{REF}`: body changed: 3 lines, in 1a2b3c4"
    one = _reason(ChangeKind.BODY_CHANGED, commit=SHA, uncommitted=True, lines_changed=1)
    assert change_line(one) == f"`{REF}`: body changed: 1 line, uncommitted"
    file_reason = _reason(ChangeKind.BODY_CHANGED, anchor_ref="app/auth/crypto.py", commit=SHA, uncommitted=True)
    assert change_line(file_reason) == "`app/auth/crypto.py`: definitions in the file changed, uncommitted"


def test_annotations_changed() -> None:
    r = _reason(
        ChangeKind.ANNOTATIONS_CHANGED,
        old_signature="def route(rule:str)->ViewCallable:",
        new_signature="def route(rule:str|None)->RouteCallable:",
        commit=SHA,
    )
    assert change_line(r) == (
        f"`{REF}`: annotations changed: type of `rule` `str` → `str | None`, "
        "return type `ViewCallable` → `RouteCallable`, in 1a2b3c4"
    )


def _direct_dependency(detail: str = "a.py::f calls b.py::g, whose signature changed") -> StaleReason:
    """A reason as the daemon makes it for ``a.py::f``, a direct caller of ``b.py::g``,
    whose parameter ``x`` was removed."""
    return _reason(
        ChangeKind.DEPENDENCY_CHANGED,
        anchor_ref="a.py::f",
        old_signature="def g(x,y):",
        new_signature="def g(y):",
        dependency_ref="b.py::g",
        via="CALLS",
        commit=SHA,
        detail=detail,
        dependency_hops=1,
    )


def test_dependency_changed() -> None:
    r = _direct_dependency()
    assert change_line(r) == "`a.py::f`: calls `b.py::g`, whose parameter `x` was removed, in 1a2b3c4"
    gone = _reason(
        ChangeKind.DEPENDENCY_CHANGED,
        anchor_ref="a.py::f",
        old_signature="def g(x,y):",
        dependency_ref="b.py::g",
        via="INHERITS",
        detail="a.py::f inherits from b.py::g (2 hops away), which was removed",
        dependency_hops=2,
        dependency_removed=True,
    )
    assert change_line(gone) == "`a.py::f`: inherits from `b.py::g` (2 hops away), which was removed"


def test_the_hop_count_and_the_removal_are_read_from_the_fields() -> None:
    """How far away the dependency is and whether it was removed come from the reason's fields
    (``dependency_hops``, ``dependency_removed``), never from its detail: the detail below
    says otherwise each time and is not read."""
    r = _direct_dependency(detail="a.py::f calls b.py::g (7 hops away), which was removed")
    assert change_line(r) == "`a.py::f`: calls `b.py::g`, whose parameter `x` was removed, in 1a2b3c4"
    assert change_line(replace(r, dependency_hops=2)) == (
        "`a.py::f`: calls `b.py::g` (2 hops away), whose parameter `x` was removed, in 1a2b3c4"
    )
    assert change_line(replace(r, dependency_hops=3, via="IMPORTS")) == (
        "`a.py::f`: imports the file of `b.py::g` (3 hops away), whose parameter `x` was removed, in 1a2b3c4"
    )
    removed = replace(r, new_signature="", dependency_removed=True)
    assert change_line(removed) == "`a.py::f`: calls `b.py::g`, which was removed, in 1a2b3c4"
    # a removed dependency that had no signature
    assert change_line(replace(removed, old_signature="", dependency_hops=2)) == (
        "`a.py::f`: calls `b.py::g` (2 hops away), which was removed, in 1a2b3c4"
    )
    # re-signed to no signature at all: not said to be removed
    assert (
        change_line(replace(r, new_signature="")) == "`a.py::f`: calls `b.py::g`, whose signature changed, in 1a2b3c4"
    )
    # a reason made before the fields and not read through a document (hops 0): no distance said
    assert change_line(replace(r, dependency_hops=0)) == change_line(r)


def test_a_changed_default_says_first_that_the_caller_leaves_it_out() -> None:
    """Issue 41: the daemon marks only callers that leave a changed default out (or may,
    through ``*``/``**``) and says so in the detail; the line leads with it."""
    r = _reason(
        ChangeKind.DEPENDENCY_CHANGED,
        anchor_ref="a.py::f",
        old_signature="def g(x,timeout=5):",
        new_signature="def g(x,timeout=30):",
        dependency_ref="b.py::g",
        via="CALLS",
        commit=SHA,
        detail="a.py::f calls b.py::g, whose signature changed",
        caller_omits=("timeout",),
    )
    assert (
        change_line(r) == "`a.py::f`: calls `b.py::g` without `timeout`, whose default changed: `5` → `30`, in 1a2b3c4"
    )
    splat = replace(r, caller_starred=True)
    assert change_line(splat) == (
        "`a.py::f`: calls `b.py::g` with `*`/`**` arguments (maybe without `timeout`), whose default changed: "
        "`5` → `30`, in 1a2b3c4"
    )
    # the full sentence (``show --verbose``, the change view) says it as the daemon once did in the detail
    assert reason_detail(r) == "a.py::f calls b.py::g, whose signature changed; this caller omits `timeout`"
    assert reason_detail(splat) == (
        "a.py::f calls b.py::g, whose signature changed; this caller may pass `timeout` in `*`/`**` arguments"
    )
    assert caller_words(replace(r, caller_omits=())) == ""
    assert reason_detail(replace(r, caller_omits=())) == r.detail


def test_two_changed_defaults_a_caller_leaves_out_are_both_named() -> None:
    r = _reason(
        ChangeKind.DEPENDENCY_CHANGED,
        anchor_ref="a.py::f",
        old_signature="def g(x,timeout=5,retries=1):",
        new_signature="def g(x,timeout=30,retries=3):",
        dependency_ref="b.py::g",
        via="CALLS",
        commit=SHA,
        detail="a.py::f calls b.py::g, whose signature changed",
        caller_omits=("timeout", "retries"),
    )
    assert change_line(r) == (
        "`a.py::f`: calls `b.py::g` without `timeout`, `retries`, whose defaults changed: `timeout` `5` → `30`, "
        "`retries` `1` → `3`, in 1a2b3c4"
    )
    # a dependent that is not such a caller (a subclass, an importer) hears of the default by name
    other = replace(r, caller_omits=(), new_signature="def g(x,timeout=30,retries=1):")
    assert change_line(other) == (
        "`a.py::f`: calls `b.py::g`, whose default of `timeout` changed: `5` → `30`, in 1a2b3c4"
    )
    assert change_line(replace(r, caller_starred=True)) == (
        "`a.py::f`: calls `b.py::g` with `*`/`**` arguments (maybe without `timeout`, `retries`), whose defaults "
        "changed: `timeout` `5` → `30`, `retries` `1…, in 1a2b3c4"
    )


def test_a_long_line_is_cut_to_the_limit_and_keeps_when() -> None:
    many = ",".join(f"parameter_number_{i}" for i in range(12))
    r = _reason(ChangeKind.SIGNATURE_CHANGED, old_signature="def f():", new_signature=f"def f({many}):", commit=SHA)
    line = change_line(r)
    assert len(line) <= MAX_LINE
    assert line.endswith("…, in 1a2b3c4") or line.endswith("more changes, in 1a2b3c4")
    assert "and 9 more changes" in change_words(r)


def test_annotations_crowding_out_what_a_caller_must_change_are_one_phrase() -> None:
    """click's ``ParamType.shell_complete`` (1b9a657): a parameter renamed and four annotations
    added read "parameter `args` renamed to `param`, type of `ctx` `Context` added, type of
    `param` `Parameter` added and 2 more c…": the annotations are one phrase, said last."""
    r = _reason(
        ChangeKind.SIGNATURE_CHANGED,
        old_signature="def shell_complete(self,ctx,args,incomplete):",
        new_signature="def shell_complete(self,ctx:Context,param:Parameter,incomplete:str)->list[CompletionItem]:",
    )
    assert change_words(r) == "parameter `args` renamed to `param`, annotations changed"
    # three phrases fit in a line: each said
    few = replace(r, new_signature="def shell_complete(self,ctx:Context,param,incomplete):")
    assert change_words(few) == "parameter `args` renamed to `param`, type of `ctx` `Context` added"
    # annotations alone: each said (up to three)
    typed = replace(
        r, change=ChangeKind.ANNOTATIONS_CHANGED, new_signature="def shell_complete(self,ctx:C,args:A,incomplete:I)->R:"
    )
    assert change_words(typed).startswith("annotations changed: type of `ctx` `C` added, type of `args` `A` added, ")
    assert change_words(typed).endswith(" and 1 more change")


def test_when_words() -> None:
    assert when_words(SHA, False) == "in 1a2b3c4"
    assert when_words(SHA, True) == "uncommitted"
    assert when_words("", False) == ""


def test_a_change_the_delta_cannot_name_shows_the_new_signature_spaced() -> None:
    r = _reason(ChangeKind.SIGNATURE_CHANGED, old_signature="def f(a):", new_signature="async def f(a):")
    assert change_words(r) == "signature changed to `async def f(a)`"


# -- spacing -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sig", "shown"),
    [
        (NEW, 'def hash_password(password: str, pepper: str = "") -> str'),
        ("def get(url,params=None,**kwargs):", "def get(url, params=None, **kwargs)"),
        ("def f(a,/,b,*,c:int|None=None)->dict[str,int]:", "def f(a, /, b, *, c: int | None = None) -> dict[str, int]"),
        ("class Concrete(Mixin,Base):", "class Concrete(Mixin, Base)"),
        (
            "func(s*Service)Login(email,password string)(string,error)",
            "func (s *Service) Login(email, password string) (string, error)",
        ),
        ("func B64(data[]byte)[]byte", "func B64(data []byte) []byte"),
        ("public static byte[]toBytes(String value)", "public static byte[] toBytes(String value)"),
        ("public static void Main(string[]args)", "public static void Main(string[] args)"),
        ("struct cart*cart_new(int capacity);", "struct cart *cart_new(int capacity)"),
        (
            "pub fn login(&self,email:&str)->Result<String,AuthError>",
            "pub fn login(&self, email: &str) -> Result<String, AuthError>",
        ),
        (
            "async fetchUser(id:number,cache?:boolean):Promise<User>",
            "async fetchUser(id: number, cache?: boolean): Promise<User>",
        ),
        ("makeToken=(userId:number):string=>", "makeToken = (userId: number): string =>"),
        ("def main(args:Array[String]):Unit=", "def main(args: Array[String]): Unit"),
        ("class Cart<ApplicationRecord", "class Cart < ApplicationRecord"),
        ("public function send(string $to,string $body):void", "public function send(string $to, string $body): void"),
        ("public static func format(_ cents:Int)->String", "public static func format(_ cents: Int) -> String"),
        (
            "fn fmt(&self,f:&mut fmt::Formatter<'_>)->fmt::Result",
            "fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result",
        ),
        ('def sep(s:str=", ")->str:', 'def sep(s: str = ", ") -> str'),
        (  # a comma inside an annotation keeps the parameter annotated; the trailing comma goes
            "def deserialize(self,value:typing.Any,data:typing.Mapping[str,typing.Any]|None=None,**kwargs,):",
            "def deserialize(self, value: typing.Any, data: typing.Mapping[str, typing.Any] | None = None, **kwargs)",
        ),
        ("def f(t=(1,),d:dict[str,int]={},k=1,):", "def f(t=(1,), d: dict[str, int] = {}, k=1)"),
        (  # a quoted word with a hyphen or a space is a string, not a Rust lifetime
            "def f(o:Any,/,*,p:bool|Literal['off','trailing-strings']=False,q='a b',)->T:",
            "def f(o: Any, /, *, p: bool | Literal['off', 'trailing-strings'] = False, q='a b') -> T",
        ),
        (
            "fetch(mode:'no-cors'|'cors'='cors'):Promise<Response>",
            "fetch(mode: 'no-cors' | 'cors' = 'cors'): Promise<Response>",
        ),
        ("pub fn f<'a,'b:'a>(x:&'a[u8],y:&'b str)->Foo<'a>", "pub fn f<'a, 'b: 'a>(x: &'a[u8], y: &'b str) -> Foo<'a>"),
    ],
)
def test_spaced(sig: str, shown: str) -> None:
    assert spaced(sig) == shown


# -- parsing across languages ------------------------------------------------------------------

N = ParamKind.NORMAL


@pytest.mark.parametrize(
    ("sig", "name", "params", "returns", "bases"),
    [
        (
            "def f(a,/,b=1,*args,c,**kw)->int:",
            "f",
            [
                ("a", ParamKind.POSITIONAL_ONLY, ""),
                ("b", N, "1"),
                ("args", ParamKind.VAR_POSITIONAL, ""),
                ("c", ParamKind.KEYWORD_ONLY, ""),
                ("kw", ParamKind.VAR_KEYWORD, ""),
            ],
            "int",
            (),
        ),
        ("@dataclass class User(Model):", "User", [], "", ("Model",)),
        (
            "func(s*Server)Start(ctx context.Context,opts ...Option)error",
            "Start",
            [("ctx", N, ""), ("opts", ParamKind.VAR_POSITIONAL, "")],
            "error",
            (),
        ),
        (
            "func NewUser(id int,email,hash string)*User",
            "NewUser",
            [("id", N, ""), ("email", N, ""), ("hash", N, "")],
            "*User",
            (),
        ),
        (
            "public String login(String email,String...scopes)",
            "login",
            [("email", N, ""), ("scopes", ParamKind.VAR_POSITIONAL, "")],
            "String",
            (),
        ),
        ("public class User implements Entity,Comparable<User>", "User", [], "", ("Entity", "Comparable<User>")),
        (
            "fetchUser(id:number,cache?:boolean):Promise<User>",
            "fetchUser",
            [("id", N, ""), ("cache", N, "undefined")],
            "Promise<User>",
            (),
        ),
        (
            'function digest(value,salt="",...rest)',
            "digest",
            [("value", N, ""), ("salt", N, '""'), ("rest", ParamKind.VAR_POSITIONAL, "")],
            "",
            (),
        ),
        ("pub fn register(&mut self,email:&str)->&User", "register", [("self", N, ""), ("email", N, "")], "&User", ()),
        ("fun total(quantity:Int=1):Long", "total", [("quantity", N, "1")], "Long", ()),
        (
            "open class Cart(private val store:Store):Entity(),Priced",
            "Cart",
            [("store", N, "")],
            "",
            ("Entity", "Priced"),
        ),
        ("def add(item:Item):Unit=", "add", [("item", N, "")], "Unit", ()),
        ("class Cart(store:Store)extends Entity with Priced", "Cart", [("store", N, "")], "", ("Entity", "Priced")),
        ("public static func format(_ cents:Int)->String", "format", [("cents", N, "")], "String", ()),
        (
            "public function __construct(private Mailer $mailer,string $name='x')",
            "__construct",
            [("$mailer", N, ""), ("$name", N, "'x'")],
            "",
            (),
        ),
        (
            "def initialize(price,quantity=1,*rest,key:,opt:2,&blk)",
            "initialize",
            [
                ("price", N, ""),
                ("quantity", N, "1"),
                ("rest", ParamKind.VAR_POSITIONAL, ""),
                ("key", ParamKind.KEYWORD_ONLY, ""),
                ("opt", ParamKind.KEYWORD_ONLY, "2"),
                ("blk", N, "nil"),
            ],
            "",
            (),
        ),
        ("class Cart<ApplicationRecord", "Cart", [], "", ("ApplicationRecord",)),
        ("std::string shop::Store::summary(int n=3)const", "summary", [("n", N, "3")], "std::string", ()),
        ("class Store:public Repository", "Store", [], "", ("Repository",)),
        ("public static void Main(params string[]args)", "Main", [("args", ParamKind.VAR_POSITIONAL, "")], "void", ()),
        ("struct cart*cart_new(int capacity);", "cart_new", [("capacity", N, "")], "struct cart*", ()),
        ("int main(void)", "main", [], "int", ()),
        ("Service struct", "Service", [], "", ()),
        ("pub trait Named:Entity", "Named", [], "", ("Entity",)),
    ],
)
def test_parse_signature(
    sig: str, name: str, params: list[tuple[str, ParamKind, str]], returns: str, bases: tuple[str, ...]
) -> None:
    parsed = parse_signature(sig)
    assert parsed is not None
    assert parsed.name == name
    assert [(p.name, p.kind, p.default) for p in parsed.params] == params
    assert parsed.returns == returns
    assert parsed.bases == bases


def test_parse_keeps_annotations_and_receiver() -> None:
    parsed = parse_signature("func(s*Server)Start(ctx context.Context)error")
    assert parsed is not None
    assert (parsed.receiver, parsed.keyword) == ("s*Server", "func")
    py = parse_signature("def total(items:list[float],discount:Discount|None=None)->float:")
    assert py is not None
    assert py.params[1] == Param("discount", ParamKind.NORMAL, "None", "Discount|None")
    assert parse_signature("") is None


def test_a_signature_is_parsed_once_while_it_is_kept() -> None:
    # a knowledge pass grades the same few signatures thousands of times (attrs' docs: 11,843
    # parses of 25 signatures took 6.9 s of a 16 s pass): the parse is kept, and shared
    # safely because it is immutable
    sig = "def define(maybe_cls=None,*,these=None,repr=None,slots=True,frozen=False,auto_attribs=None):"
    first = parse_signature(sig)
    assert first is not None
    assert parse_signature("" + sig) is first
    with pytest.raises(AttributeError):
        first.name = "other"  # type: ignore[misc]


# -- deltas --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "phrases", "breaks"),
    [
        (OLD, NEW, ["parameter `pepper` added (optional)"], False),
        ("def f(a):", "def f(a,b):", ["parameter `b` added (required)"], True),
        ("def f(a,b):", "def f(b,a):", ["parameters reordered"], True),
        ("def f(a,b):", "def f(a,c):", ["parameter `b` renamed to `c`"], True),
        ("def f(a,b=1):", "def f(a,b=2):", ["default of `b` `1` → `2`"], False),
        ("def f(a,b=1):", "def f(a,b):", ["parameter `b` made required (no default)"], True),
        ("def f(a,*,x=1,**kw):", "def f(a,*,x=1,y=None,**kw):", ["parameter `y` added (optional)"], False),
        ("def f(*,x,y):", "def f(*,y,x):", [], False),
        ("def f(a:int)->int:", "def f(a:str)->str:", ["type of `a` `int` → `str`", "return type `int` → `str`"], False),
        ("def f(a):", "def f(a)->int:", ["return type `int` added"], False),
        (  # types spaced; one too long to read in a line: what changed, not the type
            "def f(d:dict[str,int],m:typing.Mapping[str,typing.Any]|typing.Iterable[typing.Any]):",
            "def f(d:dict[str,str],m:typing.Mapping[str,typing.Any]):",
            ["type of `d` `dict[str, int]` → `dict[str, str]`", "type of `m` changed"],
            False,
        ),
        ("class A(object):", "class A:", ["base `object` removed"], False),
        (  # the same base, parameterised: one change, spaced
            "class FileMultiDict(MultiDict):",
            "class FileMultiDict(MultiDict[str,FileStorage],Base):",
            ["base `MultiDict` → `MultiDict[str, FileStorage]`", "base `Base` added"],
            False,
        ),
        (
            "func(s*Server)Start()error",
            "func(s*Server)Start(ctx context.Context)error",
            ["parameter `ctx` added (required)"],
            True,
        ),
        (
            "public void login(String name)",
            "public void login(String name, String pw)",
            ["parameter `pw` added (required)"],
            True,
        ),
        (
            "fetchUser(id:number):Promise<User>",
            "fetchUser(id:number,cache?:boolean):Promise<User>",
            ["parameter `cache` added (optional)"],
            False,
        ),
        (
            "pub fn f(a:u32)->u32",
            "pub fn f(a:u64)->u64",
            ["type of `a` `u32` → `u64`", "return type `u32` → `u64`"],
            False,
        ),
        (
            "function money(int $cents):string",
            "function money(int $cents,string $cur='EUR'):string",
            ["parameter `$cur` added (optional)"],
            False,
        ),
        ("def initialize(price)", "def initialize(price,quantity:)", ["parameter `quantity` added (required)"], True),
        ("fun add(item:Item)", "fun add(item:Item,vararg more:Item)", ["parameter `more` added (variadic)"], False),
        # a positional-only parameter's name is no caller's: PEP 484's `__x` and PEP 570's `/`
        ("def f(self,__o:Any,*,s=None)->T:", "def f(self,o:Any,/,*,s=None)->T:", [], False),
        ("def f(a,/,b):", "def f(x,/,b):", [], False),
        ("def f(__a:int):", "def f(a:str,/):", ["type of `a` `int` → `str`"], False),
        ("def f(__a,b):", "def f(c,b):", [], False),
        ("def f(__a__,b):", "def f(c,b):", ["parameter `__a__` renamed to `c`"], True),
        ("def f(a,b):", "def f(a,__c):", ["parameter `b` renamed to `__c`"], True),
        (  # the default after a hyphenated literal is read: an optional parameter, the return type kept
            "def validate_python(self,__object:Any,*,strict:bool|None=None,)->T:",
            "def validate_python(self,object:Any,/,*,strict:bool|None=None,"
            "experimental_allow_partial:bool|Literal['off','on','trailing-strings']=False,)->T:",
            ["parameter `experimental_allow_partial` added (optional)"],
            False,
        ),
    ],
)
def test_signature_delta(old: str, new: str, phrases: list[str], breaks: bool) -> None:
    d = signature_delta(old, new)
    assert list(d.phrases()) == phrases
    assert d.breaks_callers is breaks


def test_annotations_only() -> None:
    assert signature_delta("def f(a:int)->int:", "def f(a:str)->str:").annotations_only
    assert not signature_delta("def f(a:int):", "def f(a:str,b:int):").annotations_only
    assert not signature_delta("def f(a):", "def f(a):").annotations_only


def test_a_deprecated_name_says_which_hook_still_serves_it() -> None:
    r = StaleReason(
        "src/click/utils.py::get_binary_stream", ChangeKind.DEPRECATED, 1.0, commit=SHA,
        served_by="click.__getattr__",
    )  # fmt: skip
    assert change_words(r) == "deprecated: `click.__getattr__` still serves it, with a warning"
    assert change_line(r) == (
        "`src/click/utils.py::get_binary_stream`: deprecated: `click.__getattr__` still serves it, with a warning, "
        "in 1a2b3c4"
    )


def test_a_recalled_code_example_reads_as_one_line_of_words() -> None:
    """A unit that is a code example keeps its newlines and indentation; ``recall`` shows its
    text wrapped as words, not with the indentation's runs of spaces in the middle of a line."""
    from graphmem.cli.views import render_recalled
    from graphmem.types import Category, Observation, ObservationStatus, Recalled

    text = 'env = Environment(\n    loader=PackageLoader("yourapp"),\n    autoescape=select_autoescape()\n)'
    o = Observation("d24ad22d1c50a6bd", "r", text, Category.OTHER, 0.0, 0.0, ObservationStatus.FRESH)
    lines = render_recalled(1, Recalled(o, 1.0, 0, ""))
    assert lines[1] == '   env = Environment( loader=PackageLoader("yourapp"), autoescape=select_autoescape() )'
