"""Co-change as a retrieval signal: the seeds' partners mapped onto graph nodes (pure).

Retrieval gives the seed files and symbols (as ``path`` / ``path::name`` keys of one
repository) and two lookups into its graph; this returns, per graph node, the strongest
co-change evidence with any seed. A symbol node also inherits its file's strength times how
often the symbol changes when its file does (``CoChange.symbol_share``; the chain rule
P(symbol | seed) = P(file | seed) * P(symbol | file), so a function that changes with nearly
every change of its file inherits nearly all of the file's co-change, one its file's changes
never touch none of it); without that share, a flat ``FILE_SHARE``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graphmemd.retrieval.cochange import CoChange, Partner

#: Partner files per seed whose notes become candidates (the strongest).
PARTNER_FILES = 25
#: Partner symbols per seed.
PARTNER_SYMBOLS = 150
#: Share of a file's co-change strength a symbol in it inherits.
FILE_SHARE = 0.5
#: Co-change is given as the reason a note was found only with at least this many commits
#: behind it ("in 1 of the last 1 commits" explains nothing).
MIN_HISTORY = 3


@dataclass(frozen=True, slots=True)
class CoSignal:
    """Co-change evidence for one node: ``together`` of the ``total`` commits that touched
    ``seed`` (a path or ``path::name``) also touched this node."""

    strength: float
    together: int
    total: int
    seed: str

    @property
    def explains(self) -> bool:
        """Whether there is history enough (``MIN_HISTORY`` commits) to give it as a reason."""
        return self.total >= MIN_HISTORY

    def why(self, ref: str) -> str:
        """The sentence explaining why ``ref`` was related to the seed by co-change; with less
        than ``MIN_HISTORY`` commits it says so (given only when nothing else reached ``ref``)."""
        if self.explains:
            return (
                f"{ref} changed together with {self.seed} in {self.together} "
                f"of the last {self.total} commits that touched it"
            )
        how = "the one commit" if self.total == 1 else f"{self.together} of the {self.total} commits"
        return f"{ref} changed together with {self.seed} in {how} that touched it (too little history to be sure)"


def _better(a: CoSignal | None, b: CoSignal) -> bool:
    return a is None or (b.strength, b.together) > (a.strength, a.together)


def cochange_signals(
    co: CoChange,
    seed_files: Iterable[str],
    seed_symbols: Iterable[str],
    file_node: Callable[[str], str | None],
    symbol_nodes: Callable[[str, str], list[str]],
) -> tuple[dict[str, CoSignal], list[str]]:
    """(node id -> strongest signal, partner file node ids strongest first). ``file_node(path)``
    is the graph's file id (None if not indexed); ``symbol_nodes(path, name)`` the symbol ids."""
    out: dict[str, CoSignal] = {}
    partner_files: dict[str, float] = {}

    def put(node: str, p: Partner, seed: str) -> None:
        sig = CoSignal(p.strength, p.together, p.total, seed)
        if _better(out.get(node), sig):
            out[node] = sig

    seeds = [(k, False) for k in dict.fromkeys(seed_files)] + [(k, True) for k in dict.fromkeys(seed_symbols)]
    for key, _is_symbol in seeds:
        for p in co.partners(key, PARTNER_FILES, symbols=False):
            node = file_node(p.key)
            if node is not None:
                put(node, p, key)
                partner_files[node] = max(partner_files.get(node, 0.0), p.strength)
        for p in co.partners(key, PARTNER_SYMBOLS, symbols=True):
            path, _, name = p.key.partition("::")
            for node in symbol_nodes(path, name):
                put(node, p, key)
    ranked = sorted(partner_files, key=lambda n: (-partner_files[n], n))
    return out, ranked


def node_signal(
    signals: dict[str, CoSignal],
    node: str,
    file_of: Callable[[str], str | None],
    share: Callable[[str], float] | None = None,
) -> CoSignal | None:
    """A node's co-change: its own, or its file's times the symbol's share of its file's
    changes (``share(node)``; without it ``FILE_SHARE``), whichever is stronger."""
    own = signals.get(node)
    fid = file_of(node)
    if fid is None or fid == node:
        return own
    via = signals.get(fid)
    if via is None:
        return own
    part = share(node) if share is not None else FILE_SHARE
    inherited = CoSignal(via.strength * part, via.together, via.total, via.seed)
    return inherited if _better(own, inherited) else own
