"""Equal values held once: a new parse of a file takes the string objects (and unchanged
symbol records) the graph already holds for it.

While a pass or batch is parsed, the graph still holds every file's previous symbols, and the
new parses wait for their resolution beside them. Most symbols of a changed file did not
change, so without this their names, signatures and hashes are held twice until the delta is
applied (at 0.9 M lines, a checkout that changes every file: ~75 k symbols). Pure: values in,
values out; equal strings are interchangeable, so nothing here changes what a parse says.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from graphmemd.graph.model import ParsedFile, ParsedSymbol, SymbolInfo


def shared_symbol(s: ParsedSymbol, i: SymbolInfo) -> ParsedSymbol:
    """``s`` holding ``i``'s name, qualified name, signature and hashes where they are equal."""
    return ParsedSymbol(
        i.name if i.name == s.name else s.name,
        i.qualname if i.qualname == s.qualname else s.qualname,
        s.kind,
        s.parent,
        s.start_line,
        s.end_line,
        s.start_byte,
        s.end_byte,
        i.signature if i.signature == s.signature else s.signature,
        i.sig_hash if i.sig_hash == s.sig_hash else s.sig_hash,
        i.body_hash if i.body_hash == s.body_hash else s.body_hash,
    )


def share_strings(parsed: ParsedFile, infos: Sequence[SymbolInfo]) -> ParsedFile:
    """``parsed`` with each symbol holding the strings of the symbol of ``infos`` (the graph's
    symbols of the same file) that has its qualified name, where they are equal."""
    if not infos:
        return parsed
    by_qualname = {i.qualname: i for i in infos}
    symbols = tuple(s if (i := by_qualname.get(s.qualname)) is None else shared_symbol(s, i) for s in parsed.symbols)
    return replace(parsed, symbols=symbols)


def share_parse(parsed: ParsedFile, donor: ParsedFile | None, infos: Sequence[SymbolInfo]) -> ParsedFile:
    """``parsed`` holding what ``donor`` (another checkout's kept parse of the same path) holds
    where it is equal: its symbol records, imports and inheritances (``ParsedFile`` carries no
    checkout id, so equal records are interchangeable); else the strings of ``infos`` (that
    checkout's symbols of the file: ``share_strings``)."""
    if donor is None or donor.path != parsed.path or donor.language is not parsed.language:
        return share_strings(parsed, infos)
    same = {
        name: got
        for name in ("symbols", "imports", "inherits", "arities", "exports")
        if (got := getattr(donor, name)) == getattr(parsed, name) and got is not getattr(parsed, name)
    }
    if "symbols" not in same:
        parsed = share_strings(parsed, infos)
    return replace(parsed, **same) if same else parsed


def reuse_unchanged(new: Sequence[SymbolInfo], old: Sequence[SymbolInfo]) -> list[SymbolInfo]:
    """``new`` with every symbol equal to one of ``old`` (same id, every field equal) replaced
    by that object."""
    if not old:
        return list(new)
    by_id = {o.id: o for o in old}
    return [o if (o := by_id.get(n.id)) is not None and o == n else n for n in new]
