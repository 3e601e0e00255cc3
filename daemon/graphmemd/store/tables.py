"""The Arrow tables a bulk load of the code graph writes: File and Symbol rows, the edges
between them with their resolution confidence. Pure (no database): ``store.py`` copies them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from graphmemd.graph.model import Confidence, FileRecord, ParsedFile, ResolvedEdges, SymbolInfo, file_id, symbols_of

_LIST_STR = pa.list_(pa.string())
#: Column types of the File and Symbol node tables (every other column is a string).
_FILE_TYPES: dict[str, pa.DataType] = {
    "size": pa.int64(),
    "lines": pa.int64(),
    "syntax_errors": pa.int64(),
    "indexed_at": pa.float64(),
    "unresolved_calls": _LIST_STR,
}
_SYMBOL_TYPES: dict[str, pa.DataType] = {
    "start_line": pa.int64(),
    "end_line": pa.int64(),
    "unresolved_calls": _LIST_STR,
}
_FILE_COLUMNS = ("id", "repo", "path", "language", "hash", "size", "lines", "indexed_at", "syntax_errors",
                 "unresolved_calls")  # fmt: skip
_SYMBOL_COLUMNS = ("id", "repo", "file", "name", "qualname", "kind", "parent", "start_line", "end_line",
                   "signature", "sig_hash", "body_hash", "unresolved_calls")  # fmt: skip


#: Python lists become Arrow in slices of this many rows: one conversion holds the GIL
#: throughout (a 400k-row Symbol table held it for ~0.3 s, stalling health checks)
SLICE_ROWS = 8192


def sliced_table(data: Mapping[str, list[Any]], types: Mapping[str, pa.DataType] | None = None) -> pa.Table:
    """``data`` (equal-length columns; strings unless ``types`` says otherwise) as an Arrow
    table built ``SLICE_ROWS`` rows at a time."""
    schema = pa.schema([(name, (types or {}).get(name, pa.string())) for name in data])
    n = len(next(iter(data.values()), []))
    batches = [
        pa.RecordBatch.from_pydict({k: v[i : i + SLICE_ROWS] for k, v in data.items()}, schema=schema)
        for i in range(0, n, SLICE_ROWS)
    ]
    return pa.Table.from_batches(batches, schema=schema)


class StagedRows:
    """The node rows of a bulk load's chunks, held as Arrow tables until a table has
    ``slice_rows`` of them: a load then COPYs full slices instead of one COPY per table per
    chunk. A COPY has a fixed cost (~0.02-0.07 CPU-s in LadybugDB 0.22 whatever its size:
    5 COPYs of 8,000 Symbol rows cost ~0.8 CPU-s, 2 of 20,000 ~0.5), and a chunk of files
    is often far below a slice (a chunk's File rows: a few hundred)."""

    def __init__(self, slice_rows: int) -> None:
        self._slice = slice_rows
        self._held: dict[str, list[pa.Table]] = {}

    def add(self, rows: Iterable[tuple[str, pa.Table]]) -> None:
        """Hold more rows (table name, rows), in order."""
        for table, data in rows:
            if data.num_rows:
                self._held.setdefault(table, []).append(data)

    def take(self, *, final: bool = False) -> list[tuple[str, pa.Table]]:
        """The rows to COPY now, in the order their tables were first added: each table's
        whole slices (every held row when ``final``); the remainder stays held."""
        out: list[tuple[str, pa.Table]] = []
        for table, parts in list(self._held.items()):
            data = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
            ready = data.num_rows if final else data.num_rows - data.num_rows % self._slice
            if ready:
                out.append((table, data.slice(0, ready)))
            if ready < data.num_rows:
                self._held[table] = [data.slice(ready)]
            else:
                del self._held[table]
        return out


def unresolved_of(edges: ResolvedEdges) -> dict[str, list[str]]:
    """The call texts that stayed unresolved, by calling node (file or symbol)."""
    calls: dict[str, list[str]] = {}
    for src, text in edges.unresolved_calls:
        calls.setdefault(src, []).append(text)
    return calls


def node_tables(
    repo_id: str,
    files: Sequence[tuple[FileRecord, ParsedFile]],
    unresolved_calls: Mapping[str, list[str]],
    infos: Mapping[str, Sequence[SymbolInfo]] | None = None,
) -> list[tuple[str, pa.Table]]:
    """The File and Symbol rows of ``files`` as Arrow tables (a symbol's file and parent are
    its ``file`` and ``parent`` columns: no edge rows for them). ``unresolved_calls``: from
    ``unresolved_of``; ``infos``: the files' symbols as ``symbols_of`` already derived them
    (by path), so they are not derived twice. Built a column at a time (no row tuples)."""
    fc: dict[str, list[Any]] = {name: [] for name in _FILE_COLUMNS}
    sc: dict[str, list[Any]] = {name: [] for name in _SYMBOL_COLUMNS}
    for rec, parsed in files:
        fid = file_id(repo_id, rec.path)
        for name, value in zip(_FILE_COLUMNS, (fid, repo_id, rec.path, rec.language.value, rec.content_hash, rec.size,
                               parsed.lines, rec.indexed_at, rec.syntax_errors, unresolved_calls.get(fid, [])),
                               strict=True):  # fmt: skip
            fc[name].append(value)
        # ids and parent ids as the rest of the daemon derives them; lines come from the parse
        known = infos.get(rec.path) if infos is not None else None
        infos_of = known if known is not None else symbols_of(repo_id, parsed)
        n = len(infos_of)
        ids = [i.id for i in infos_of]
        sc["id"] += ids
        sc["repo"] += [repo_id] * n
        sc["file"] += [fid] * n
        sc["name"] += [s.name for s in parsed.symbols]
        sc["qualname"] += [s.qualname for s in parsed.symbols]
        sc["kind"] += [s.kind.value for s in parsed.symbols]
        sc["parent"] += [i.parent_id or "" for i in infos_of]
        sc["start_line"] += [s.start_line for s in parsed.symbols]
        sc["end_line"] += [s.end_line for s in parsed.symbols]
        sc["signature"] += [s.signature for s in parsed.symbols]
        sc["sig_hash"] += [s.sig_hash for s in parsed.symbols]
        sc["body_hash"] += [s.body_hash for s in parsed.symbols]
        sc["unresolved_calls"] += [unresolved_calls.get(sid, []) for sid in ids]
        if len(parsed.symbols) != n:
            raise ValueError(f"{rec.path}: {len(parsed.symbols)} parsed symbols, {n} derived")
    return [("File", sliced_table(fc, _FILE_TYPES)), ("Symbol", sliced_table(sc, _SYMBOL_TYPES))]


def rel_tables(repo_id: str, edges: ResolvedEdges) -> list[tuple[str, pa.Table]]:
    """The resolved edges' relationship tables: imports, calls and inheritance, each edge
    with its resolution confidence."""
    out: list[tuple[str, pa.Table]] = []
    out.append(("IMPORTS", _triples(edges.imports)))
    out.append(("IMPORTS_EXT", _pairs(edges.external_imports)))
    file_prefix = f"{repo_id}:"
    sym_calls = [e for e in edges.calls if "::" in e[0]]
    file_calls = [e for e in edges.calls if "::" not in e[0] and e[0].startswith(file_prefix)]
    out.append(("CALLS", _triples(sym_calls)))
    out.append(("FILE_CALLS", _triples(file_calls)))
    inh = sliced_table(
        {
            "from": [e[0] for e in edges.inherits],
            "to": [e[1] for e in edges.inherits],
            "kind": [e[2].value for e in edges.inherits],
            "confidence": [e[3].value for e in edges.inherits],
        }
    )
    out.append(("INHERITS", inh))
    return out


def _pairs(pairs: Iterable[tuple[str, str]]) -> pa.Table:
    src: list[str] = []
    dst: list[str] = []
    for a, b in pairs:
        src.append(a)
        dst.append(b)
    return sliced_table({"from": src, "to": dst})


def _triples(edges: Iterable[tuple[str, str, Confidence]]) -> pa.Table:
    src: list[str] = []
    dst: list[str] = []
    conf: list[str] = []
    for a, b, c in edges:
        src.append(a)
        dst.append(b)
        conf.append(c.value)
    return sliced_table({"from": src, "to": dst, "confidence": conf})
