"""``signatures.respelled`` and ``memory.spelling.as_respelled`` (pure): a change's old signature
with the annotations the new one only respells written as the new one writes them, so the
change's words name what changed (issue 41: one clear line per change)."""

from __future__ import annotations

import pytest
from graphmem.changes import signature_delta
from graphmemd.graph.signatures import respelled
from graphmemd.memory.spelling import as_respelled


def words(old: str, new: str, path: str = "m.py") -> tuple[str, ...]:
    return signature_delta(as_respelled(old, new, path), new).phrases()


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        # a parameter added after a pyupgrade: only the parameter
        (
            "def f(self,s:t.Union[str,nodes.T],g:t.Optional[t.Mapping[str,t.Any]]=None)->'T':",
            "def f(self,s:str|nodes.T,name:str,g:t.Mapping[str,t.Any]|None=None)->'T':",
            ("parameter `name` added (required)",),
        ),
        # builtin generics and a return type respelled, an optional parameter added
        (
            "def f(a:List[int])->Optional[int]:",
            "def f(a:list[int],b:int=2)->int|None:",
            ("parameter `b` added (optional)",),
        ),
        # quoted and unquoted, typing prefix
        (
            "def f(a:'Foo',b:typing.Dict[str,int]):",
            "def f(a:Foo,b:dict[str,int],*,c=1):",
            ("parameter `c` added (optional)",),
        ),
        # a real annotation change is still said, the respelled one beside it is not
        (
            "def f(a:List[int],b:Optional[str])->int:",
            "def f(a:list[str],b:str|None)->int:",
            ("type of `a` `List[int]` → `list[str]`",),
        ),
        # a renamed parameter whose annotation was respelled: the rename alone
        ("def f(a:Optional[int]):", "def f(b:int|None):", ("parameter `a` renamed to `b`",)),
    ],
)
def test_respelled_annotations_are_not_said(old: str, new: str, said: tuple[str, ...]) -> None:
    assert words(old, new) == said


def test_other_languages_and_unreadable_signatures_are_left_alone() -> None:
    old, new = "function f(a:Array<number>){", "function f(a:number[],b:string){"
    assert as_respelled(old, new, "m.ts") == old  # no annotation rules: compared as written
    assert as_respelled("not a signature", "def f():", "m.py") == "not a signature"
    assert as_respelled("", "def f():", "m.py") == ""


def test_respelled_keeps_defaults_and_kinds() -> None:
    def same(x: str, y: str) -> bool:
        return {x, y} <= {"Optional[int]", "int|None"}

    old = "def f(a:Optional[int]=None,*args:Optional[int],k:Optional[int]=1,**kw:Optional[int]):"
    new = "def f(a:int|None=None,*args:int|None,k:int|None=1,**kw:int|None):"
    assert respelled(old, new, same) == new
    # what is not the same keeps its own spelling
    assert respelled(old, new, lambda x, y: False) == old
