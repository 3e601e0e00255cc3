"""Briefs: what an agent reads at a session start, or right after it edited files.

``Briefer.brief`` renders the observations retrieval finds for files, symbols or text within a
token budget, or, with none of them, the repository's brief (``overview.py``: constraints and
decisions, then what was confirmed or changed recently, then the stale and suspect notes that
need a look). ``Briefer.edit_context`` is the post-edit text (``aftermath.py``): only the notes
an edit just made stale or suspect.
Each says how many notes its budget left out. A stale or suspect note in them is first ``seen``
(``graphmemd.app.confirming.as_seen``, handed in by the service): where the daemon would refuse
to confirm it from the checkout asked about, its line says so instead of offering to confirm it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from graphmem.types import Brief, EditContext, Freshness, Observation, ObservationStatus

from graphmemd.graph.model import file_id
from graphmemd.retrieval import ranking
from graphmemd.retrieval.aftermath import Callout, find_callouts, render
from graphmemd.retrieval.overview import overview
from graphmemd.retrieval.readview import ReadView
from graphmemd.retrieval.retriever import DEFAULT_HOPS, MAX_LIMIT, Retriever, estimate_tokens, render_line

__all__ = ["Briefer"]

_DOUBTED = (ObservationStatus.STALE, ObservationStatus.SUSPECT)


class Briefer:
    """Session briefs and post-edit context over a ``Retriever`` and the read view. ``seen``:
    a note as its checkout shows it, with ``confirm_refused`` set (``confirming.as_seen``; by
    default the note unchanged)."""

    def __init__(
        self,
        view: Callable[[], ReadView],
        retriever: Retriever,
        seen: Callable[[ReadView, Observation], Observation] = lambda view, o: o,
    ) -> None:
        self._view = view
        self._retriever = retriever
        self._seen = seen

    def _doubted(self, view: ReadView, o: Observation) -> Observation:
        """``o`` with ``confirm_refused`` set when it is stale or suspect (what a line offers)."""
        return self._seen(view, o) if o.status in _DOUBTED else o

    def brief(
        self,
        *,
        repo: str = "",
        files: Sequence[str] = (),
        symbols: Sequence[str] = (),
        text: str = "",
        budget: int = 1000,
        fresh_only: bool = False,
    ) -> Brief:
        """A session brief within ``budget`` tokens: the observations retrieved for the files,
        symbols or text; with none of them, the repository's brief (``overview.py``)."""
        if not files and not symbols and not text.strip():
            return self.repository_brief(repo=repo, budget=budget, fresh_only=fresh_only)
        result = self._retriever.retrieve(
            repo=repo,
            files=files,
            symbols=symbols,
            text=text,
            hops=DEFAULT_HOPS,
            limit=MAX_LIMIT,
            fresh_only=fresh_only,
        )
        fresh = result.freshness
        head = f"# graphmem: what is known about {', '.join(files) or ', '.join(symbols) or text!r} ({_state(fresh)})"
        lines = [head]
        spent, shown = estimate_tokens(head) + 40, []
        e = self._view()
        for r in result.results:  # greedily in rank order, as retrieval packs
            if spent + r.tokens > budget:
                continue
            o = self._doubted(e, r.observation)  # a refusal makes its line longer than retrieval counted
            line = render_line(o, r.why)
            tokens = r.tokens if o is r.observation else estimate_tokens(line)
            if spent + tokens > budget:
                continue
            lines.append(line)
            shown.append(o.id)
            spent += tokens
        left_out = len(result.results) - len(shown)
        if not shown and left_out:
            lines.append(
                f"- observations exist for this code, but none fits the budget of {budget} tokens: "
                "raise the budget, or see them with recall"
            )
        elif not shown:
            lines.append("- no fresh observations for this code" if result.excluded_stale else
                         "- nothing recorded yet for this code")
        if result.excluded_stale:
            lines.append(f"({result.excluded_stale} stale or suspect observations left out: fresh only)")
        body = "\n".join(lines)
        return Brief(body, tuple(shown), fresh, estimate_tokens(body), left_out)

    def repository_brief(self, *, repo: str = "", budget: int = 1000, fresh_only: bool = False) -> Brief:
        """The repository's brief: constraints and decisions, then what was confirmed or
        changed recently, then the stale and suspect notes that need a look (``overview.py``);
        a sibling's note made on a branch this checkout does not contain (``on_branch``) is
        left out, as ``recall`` leaves it out."""
        e = self._view()
        repos = e.repos(repo)
        scope = {rt.id for rt in repos}
        notes = e.observations_shown(sorted(scope))  # a worktree's siblings' notes, judged on its code
        notes = [o for o in notes if not o.on_branch]  # (about another branch's code: as recall, left out)
        if fresh_only:
            notes = [o for o in notes if o.status is ObservationStatus.FRESH]
        with e.reading() as g:
            cap = ranking.CENTRALITY_CAP
            weights = {o.id: max((ranking.centrality(g.degree(a.symbol_id or file_id(a.repo_id, a.path), cap))
                                  for a in o.anchors), default=0.0) for o in notes}
        fresh = e.freshness(repos)
        names = ", ".join(f"{rt.id} ({rt.root})" for rt in repos) or "no repository"
        view = overview(
            notes,
            title=f"# graphmem: what is known about {names} ({_state(fresh)})",
            budget=budget,
            weight=lambda o: weights.get(o.id, 0.0),
            seen=lambda o: self._doubted(e, o),
        )
        return Brief(view.text, view.shown, fresh, view.tokens, view.total_left_out)

    def edit_context(
        self,
        *,
        repo: str = "",
        files: Sequence[str],
        edited: Mapping[tuple[str, str], float],
        budget: int = 600,
        fresh_only: bool = False,
        already_shown: Collection[str] = (),
    ) -> EditContext:
        """After an agent edited ``files``: only what the edit changed, the notes it just made
        stale or suspect (``edited``: (repository id, path) -> the file's modification time;
        ``aftermath.py``), each not already shown to the session in its current state
        (``already_shown``: ``state_key``s). ``fresh_only`` has nothing to leave out: call-outs stay."""
        del fresh_only
        e = self._view()
        repos = e.repos(repo)
        scope = {rt.id for rt in repos}
        called = [Callout(self._doubted(e, c.observation), c.reason, c.changed_ref)
                  for c in find_callouts(e.observations_shown(sorted(scope)), edited)]
        out = render([rel for _, rel in edited] or list(files), called, budget=budget, already_shown=already_shown)
        fresh = e.freshness(repos)
        return EditContext(out.text, out.shown, out.callouts, fresh, out.tokens, out.left_out, shown_states=out.states)


def _state(fresh: Freshness) -> str:
    """``index current``, or what is behind."""
    if fresh.current:
        return "index current"
    return "index NOT current (" + ", ".join(
        f"{r.repo_id}: {r.activity or f'{r.pending_changes} pending, {r.state.value}'}"
        for r in fresh.repositories
        if not r.current
    ) + ")"
