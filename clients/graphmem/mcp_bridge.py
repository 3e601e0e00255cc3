"""graphmem's tools for coding agents, as an MCP server over stdio (``graphmem mcp``).

The bridge is a thin layer over one :class:`graphmem.client.GraphMem`: every tool
calls the daemon and renders the answer twice, as compact text for the model to read and as
structured content (with an output schema) for clients that use it. Errors the daemon reports
(:class:`graphmem.errors.GraphMemError`) become tool errors (``isError`` results carrying the
message); nothing a tool does ends the server.

Configuration comes from the environment: ``GRAPHMEM_ADDRESS`` / ``GRAPHMEM_HOME`` pick the
daemon (default: the daemon's Unix socket), ``GRAPHMEM_REPO`` pins the repository tools default
to (else the registered repository with the deepest root containing the working directory; outside
every registered repository the tools that need one answer with an error, ``isError: true``)
and ``GRAPHMEM_LOG_LEVEL`` sets the level of the log written to stderr (default ``WARNING``).

stdout is the MCP transport: nothing here prints, and logging goes to stderr.
Built on the 2.x SDK: :class:`mcp.server.mcpserver.MCPServer` (``FastMCP`` in 1.x).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from graphmem import __version__
from graphmem.changes import change_line
from graphmem.client import GraphMem, deepest_repository, outside_message
from graphmem.errors import DaemonNotRunning, GraphMemError, NotFound
from graphmem.render import on_marker, reason_lines
from graphmem.types import (
    Category,
    ChangeKind,
    EdgeKind,
    Freshness,
    IndexState,
    Observation,
    ObservationStatus,
    RecallResult,
    Symbol,
    SymbolDetail,
)

__all__ = [
    "TOOL_DEFINITIONS_BUDGET",
    "TOOL_NAMES",
    "Backend",
    "CategoryName",
    "GraphMemTools",
    "build_server",
    "main",
    "tool_definitions_size",
    "tool_error",
]

TOOL_NAMES = (
    "save_observation",
    "recall",
    "session_brief",
    "list_stale",
    "confirm_observation",
    "lookup_symbol",
    "find_symbols",
    "resolve_symbol",
)

START_HINT = (
    "Start the graphmem daemon with `graphmem daemon start --repo PATH` (PATH: the repository to index), then retry."
)

# ---------------------------------------------------------------------------- texts for the agent
# Tool definitions are context an agent pays for on every turn: each description is one or two
# sentences, and what applies to every tool is said once, in INSTRUCTIONS (sent once per session).
# tests/test_mcp.py holds the definitions (name, title, description, input schema) to
# TOOL_DEFINITIONS_BUDGET characters in total.

TOOL_DEFINITIONS_BUDGET = 4000

_ANCHORS = (
    "Anchors are refs into the indexed code: `path/to/file.py::Class.method` (path relative to the "
    "repository root, then the qualified name) for a symbol, or `path/to/file.py` for a whole file. "
    "Every anchor must resolve, else the call fails listing close matches (find_symbols helps). Anchor "
    "to the narrowest code the knowledge is about."
)

_STALE = (
    "An observation is `stale` when the code under one of its anchors changed (body, signature, "
    "rename or removal) after it was written, so it may no longer be true: read the current code, then "
    "call confirm_observation(id) if it still holds (unless it says not confirmable here), or "
    "save_observation(..., supersedes=[id]) with the corrected knowledge."
)

_REPO = "Repository id or path."

INSTRUCTIONS = f"""graphmem is a persistent memory of this codebase that survives between sessions: observations \
(decisions, constraints, bug causes, conventions, dead ends) anchored to symbols and files of a code \
graph that is re-indexed as files change.
- Starting a task: call session_brief with the files you expect to touch (none: the repository's key notes).
- Before changing a function or class: recall (files/symbols) to see what is known about it and \
about code that calls or is called by it; each result says why it was reached.
- When you learn something a future session would otherwise have to rediscover (a constraint, a \
decision and its reason, a root cause, an approach that failed), save it with save_observation: one \
fact per observation, written to stand alone, not what the code or git log already says.
- {_ANCHORS}
- {_STALE}
- The repository is the one containing the working directory unless a tool's `repo` names another."""

_SAVE_DESCRIPTION = (
    "Save knowledge (constraint, decision, cause, convention, dead end) anchored to the code it is about. "
    "supersedes=[id] replaces; shared=true puts it in the repo."
)
_RECALL_DESCRIPTION = (
    "Observations about files, symbols or text and code connected to them in the dependency graph, "
    "each with why it was reached and if stale. Use before changing or debugging code."
)
_BRIEF_DESCRIPTION = (
    "The key observations for the files you will work on (none: the repository's), as text within "
    "a token budget. Call it to start a task."
)
_LIST_STALE_DESCRIPTION = "Observations whose anchored code changed since they were written, with what changed."
_CONFIRM_DESCRIPTION = (
    "Mark a stale or suspect observation still true after checking the code (re-anchored, fresh); if "
    "wrong, save a correction with supersedes=[id]."
)
_LOOKUP_DESCRIPTION = (
    "A symbol's signature, callers, callees, members, inheritance and observations: what a change touches."
)
_FIND_DESCRIPTION = (
    "Find symbols by name with `*`/`?` wildcards (`Auth*`, `app/*::*`); returns refs for anchors and recall."
)


_RESOLVE_DESCRIPTION = "Full refs for a short symbol name (`hash_password`, `Class.method`), best first."

# ---------------------------------------------------------------------------- structured output


class StaleReasonOut(BaseModel):
    """Why an observation went stale: which anchor, what changed, when."""

    anchor: str
    change: ChangeKind
    detected_at: float
    old_signature: str = ""
    new_signature: str = ""
    new_ref: str = ""
    commit: str = ""
    detail: str = ""
    uncommitted: bool = False
    lines_changed: int = 0  # BODY_CHANGED: the lines of the symbol the change touched (0: not known)
    #: a changed default's caller: the changed-default parameters it leaves out, and whether it
    #: has `*`/`**` arguments that may pass them
    caller_omits: list[str] = []
    caller_starred: bool = False
    #: a dependency's change: the dependency, how many edges away it is (1: direct), whether it
    #: was removed
    dependency: str = ""
    dependency_hops: int = 0
    dependency_removed: bool = False
    served_by: str = ""  # DEPRECATED: the hook that still serves the name (`click.__getattr__`)
    summary: str = ""  # the change in one line (graphmem.changes.change_line)


class ObservationOut(BaseModel):
    """An observation as the tools return it."""

    id: str
    repo_id: str
    text: str
    category: Category
    status: ObservationStatus
    #: set when the note comes from another checkout and was made on a branch this one does not contain
    on_branch: str = ""
    anchors: list[str]
    tags: list[str]
    source: str
    confidence: float
    stale_reasons: list[StaleReasonOut]
    supersedes: list[str]
    superseded_by: str
    contradicts: list[str]
    confirmed_by: str
    confirmed_at: float | None
    needs_review: bool
    created_at: float
    updated_at: float
    file: str = ""  # "path:line" of a unit of a knowledge file (read-only: edit the file)
    #: why confirm_observation would be refused for it from this checkout ("" when it would not)
    confirm_refused: str = ""
    #: the kind of that refusal: "archived", "only_here" (confirm it in saved_in, its home
    #: checkout), "code_gone", "no_anchors", "anchors_gone"; "" when it would not be refused
    confirm_refusal: str = ""
    #: the checkout the note was saved in, when it is shown from another checkout of its repository
    saved_in: str = ""


class RepoFreshnessOut(BaseModel):
    """Whether one repository's index is current."""

    repo_id: str
    current: bool
    state: IndexState
    pending_changes: int
    indexed_commit: str
    head_commit: str
    working_tree_dirty: bool


class FreshnessOut(BaseModel):
    """Whether the index the answer came from is current."""

    current: bool
    repositories: list[RepoFreshnessOut]


class HopOut(BaseModel):
    """One step of a why-path: an edge between two refs."""

    from_ref: str
    edge: EdgeKind
    to_ref: str


class RecalledOut(BaseModel):
    """A recalled observation with its score, distance and why."""

    observation: ObservationOut
    score: float
    distance: int
    why: str
    path: list[HopOut]
    matched_terms: list[str]


class RecallOut(BaseModel):
    """The result of ``recall``."""

    results: list[RecalledOut]
    freshness: FreshnessOut
    seeds: int
    nodes_reached: int
    total_tokens: int
    truncated: bool
    warnings: list[str]
    excluded_stale: int = 0


class BriefOut(BaseModel):
    """The result of ``session_brief``."""

    text: str
    observation_ids: list[str]
    freshness: FreshnessOut
    tokens: int
    left_out: int = 0


class ObservationListOut(BaseModel):
    """A list of observations."""

    observations: list[ObservationOut]


class SymbolOut(BaseModel):
    """A symbol as the tools return it."""

    ref: str
    id: str
    repo_id: str
    path: str
    name: str
    qualname: str
    kind: str
    language: str
    start_line: int
    end_line: int
    signature: str


class SymbolListOut(BaseModel):
    """A list of symbols."""

    symbols: list[SymbolOut]


class SymbolDetailOut(BaseModel):
    """A symbol with its callers, callees, members and container."""

    symbol: SymbolOut
    callers: list[SymbolOut]
    callees: list[SymbolOut]
    unresolved_calls: list[str]
    contains: list[SymbolOut]
    container: SymbolOut | None
    inherits: list[SymbolOut]
    inherited_by: list[SymbolOut]
    file_imports: list[str]
    file_imported_by: list[str]
    observations: list[ObservationOut]
    freshness: FreshnessOut | None


def _observation_out(o: Observation) -> ObservationOut:
    return ObservationOut(
        id=o.id,
        repo_id=o.repo_id,
        text=o.text,
        category=o.category,
        status=o.status,
        on_branch=o.on_branch,
        anchors=[a.ref for a in o.anchors],
        tags=list(o.tags),
        source=o.source,
        confidence=o.confidence,
        stale_reasons=[
            StaleReasonOut(
                anchor=r.anchor_ref,
                change=r.change,
                detected_at=r.detected_at,
                old_signature=r.old_signature,
                new_signature=r.new_signature,
                new_ref=r.new_ref,
                commit=r.commit,
                detail=r.detail,
                uncommitted=r.uncommitted,
                lines_changed=r.lines_changed,
                caller_omits=list(r.caller_omits),
                caller_starred=r.caller_starred,
                dependency=r.dependency_ref,
                dependency_hops=r.dependency_hops,
                dependency_removed=r.dependency_removed,
                served_by=r.served_by,
                summary=change_line(r),
            )
            for r in o.stale_reasons
        ],
        supersedes=list(o.supersedes),
        superseded_by=o.superseded_by,
        contradicts=list(o.contradicts),
        confirmed_by=o.confirmed_by,
        confirmed_at=o.confirmed_at,
        needs_review=o.needs_review,
        created_at=o.created_at,
        updated_at=o.updated_at,
        file=f"{o.knowledge.path}:{o.knowledge.start_line}" if o.knowledge is not None else "",
        confirm_refused=o.confirm_refused,
        confirm_refusal=o.confirm_refusal.value if o.confirm_refusal is not None else "",
        saved_in=o.saved_in,
    )


def _freshness_out(f: Freshness) -> FreshnessOut:
    return FreshnessOut(
        current=f.current,
        repositories=[
            RepoFreshnessOut(
                repo_id=r.repo_id,
                current=r.current,
                state=r.state,
                pending_changes=r.pending_changes,
                indexed_commit=r.indexed_commit,
                head_commit=r.head_commit,
                working_tree_dirty=r.working_tree_dirty,
            )
            for r in f.repositories
        ],
    )


def _symbol_out(s: Symbol) -> SymbolOut:
    return SymbolOut(
        ref=s.ref,
        id=s.id,
        repo_id=s.repo_id,
        path=s.path,
        name=s.name,
        qualname=s.qualname,
        kind=s.kind,
        language=s.language,
        start_line=s.start_line,
        end_line=s.end_line,
        signature=s.signature,
    )


def _recall_out(r: RecallResult) -> RecallOut:
    return RecallOut(
        results=[
            RecalledOut(
                observation=_observation_out(x.observation),
                score=x.score,
                distance=x.distance,
                why=x.why,
                path=[HopOut(from_ref=h.from_ref, edge=h.edge, to_ref=h.to_ref) for h in x.path],
                matched_terms=list(x.matched_terms),
            )
            for x in r.results
        ],
        freshness=_freshness_out(r.freshness),
        seeds=r.seeds,
        nodes_reached=r.nodes_reached,
        total_tokens=r.total_tokens,
        truncated=r.truncated,
        warnings=list(r.warnings),
        excluded_stale=r.excluded_stale,
    )


def _symbol_detail_out(d: SymbolDetail) -> SymbolDetailOut:
    return SymbolDetailOut(
        symbol=_symbol_out(d.symbol),
        callers=[_symbol_out(s) for s in d.callers],
        callees=[_symbol_out(s) for s in d.callees],
        unresolved_calls=list(d.unresolved_calls),
        contains=[_symbol_out(s) for s in d.contains],
        container=_symbol_out(d.container) if d.container is not None else None,
        inherits=[_symbol_out(s) for s in d.inherits],
        inherited_by=[_symbol_out(s) for s in d.inherited_by],
        file_imports=list(d.file_imports),
        file_imported_by=list(d.file_imported_by),
        observations=[_observation_out(o) for o in d.observations],
        freshness=_freshness_out(d.freshness) if d.freshness is not None else None,
    )


# ---------------------------------------------------------------------------- text rendering


def _when(ts: float | None) -> str:
    if not ts:
        return "?"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line if line else line for line in text.strip().splitlines())


def _stale_reason_text(o: Observation) -> list[str]:
    """Each reason in one line (``changes.change_line``): what changed, in words, and in which
    commit or ``uncommitted``."""
    return [f"{o.status.value}: {line}" for line in reason_lines(o)]


def _observation_text(o: Observation, head: str = "", prefix: str = "   ") -> str:
    state = on_marker(o) if o.on_branch else f"[{o.status.value.upper()}]"
    parts = [state, o.category.value, f"id {o.id}"]
    if o.confidence < 1.0:
        parts.append(f"confidence {o.confidence:.2f}")
    if o.needs_review:
        parts.append("needs review")
    lines = [head + " · ".join(parts), _indent(o.text, prefix)]
    if o.knowledge is not None:
        lines.append(f"{prefix}from {o.knowledge.path}:{o.knowledge.start_line} (edit the file to change it)")
    if o.anchors:
        lines.append(f"{prefix}anchors: {', '.join(a.ref for a in o.anchors)}")
    if o.tags:
        lines.append(f"{prefix}tags: {', '.join(o.tags)}")
    lines.extend(prefix + s for s in _stale_reason_text(o))
    if o.confirm_refused:
        lines.append(f"{prefix}not confirmable here: {o.confirm_refused}")
    if o.supersedes:
        lines.append(f"{prefix}supersedes: {', '.join(o.supersedes)}")
    if o.superseded_by:
        lines.append(f"{prefix}superseded by: {o.superseded_by}")
    if o.contradicts:
        lines.append(f"{prefix}contradicts: {', '.join(o.contradicts)}")
    if o.confirmed_by or o.confirmed_at:
        lines.append(f"{prefix}confirmed by {o.confirmed_by or '?'} at {_when(o.confirmed_at)}")
    return "\n".join(lines)


def _freshness_text(f: Freshness | None) -> str:
    if f is None:
        return "index freshness: unknown"
    if f.current:
        return "index: current"
    behind: list[str] = []
    for r in f.repositories:
        if r.current:
            continue
        bits = [r.state.value] + ([r.activity] if r.activity else [])
        if r.pending_changes and not r.activity:
            bits.append(f"{r.pending_changes} file change(s) not yet indexed")
        if r.indexed_commit and r.head_commit and r.indexed_commit != r.head_commit:
            bits.append(f"indexed {r.indexed_commit[:10]}, HEAD {r.head_commit[:10]}")
        behind.append(f"{r.repo_id}: {', '.join(bits)}")
    detail = f" ({'; '.join(behind)})" if behind else ""
    return f"index: NOT current{detail}; very recent edits may not be reflected yet, retry shortly"


def _symbol_line(s: Symbol) -> str:
    return f"{s.ref} ({s.kind}, L{s.start_line}-{s.end_line})"


def _stale_footer(observations: Sequence[Observation]) -> list[str]:
    if any(o.status is ObservationStatus.STALE for o in observations):
        return ["", _STALE]
    return []


def _recall_text(r: RecallResult) -> str:
    head = (
        f"{len(r.results)} observation(s) · seeds {r.seeds} · nodes reached {r.nodes_reached} · "
        f"~{r.total_tokens} tokens · {_freshness_text(r.freshness)}"
    )
    lines = [head]
    lines.extend(f"warning: {w}" for w in r.warnings)
    if not r.results and r.excluded_stale:
        lines.append(f"No fresh observations; {r.excluded_stale} stale or suspect one(s) left out by fresh_only.")
    elif not r.results:
        lines.append(
            "Nothing recorded about this code yet. When you learn something non-obvious about it, "
            "save it with save_observation."
        )
    for n, x in enumerate(r.results, 1):
        lines.append("")
        o = x.observation
        lines.append(_observation_text(o, head=f"{n}. "))
        lines.append(f"   score {x.score:.3f}" + (f" · distance {x.distance}" if x.path else ""))
        why = x.why or " ".join(
            [x.path[0].from_ref, *(f"-{h.edge.value}-> {h.to_ref}" for h in x.path)] if x.path else []
        )
        if why:
            lines.append(f"   why: {why}")
        if x.matched_terms:
            lines.append(f"   matched: {', '.join(x.matched_terms)}")
    if r.truncated:
        lines.append("")
        lines.append("(more results were cut by limit or budget_tokens: raise them to see more)")
    lines.extend(_stale_footer([x.observation for x in r.results]))
    return "\n".join(lines)


def _symbol_detail_text(d: SymbolDetail) -> str:
    s = d.symbol
    lines = [f"{s.ref}  ({s.kind}, {s.language}, {s.path} L{s.start_line}-{s.end_line}, id {s.id})"]
    if s.signature:
        lines.append(f"signature: {s.signature}")
    if d.container is not None:
        lines.append(f"container: {_symbol_line(d.container)}")

    def group(title: str, items: Sequence[str]) -> None:
        if items:
            lines.append(f"{title} ({len(items)}):")
            lines.extend(f"  {i}" for i in items)

    group("inherits", [_symbol_line(x) for x in d.inherits])
    group("inherited by", [_symbol_line(x) for x in d.inherited_by])
    group("contains", [_symbol_line(x) for x in d.contains])
    group("callers", [_symbol_line(x) for x in d.callers])
    group("callees", [_symbol_line(x) for x in d.callees])
    group("unresolved calls", list(d.unresolved_calls))
    group("file imports", list(d.file_imports))
    group("file imported by", list(d.file_imported_by))
    if d.observations:
        lines.append(f"observations ({len(d.observations)}):")
        lines.extend(_observation_text(o, head="- ", prefix="  ") for o in d.observations)
    else:
        lines.append("observations: none anchored here")
    lines.append(_freshness_text(d.freshness))
    lines.extend(_stale_footer(d.observations))
    return "\n".join(lines)


def _result(text: str, structured: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )


# ---------------------------------------------------------------------------- errors and backend


def tool_error(exc: GraphMemError) -> ToolError:
    """The tool error an agent sees for a graphmem error (the daemon's message, plus a hint)."""
    if isinstance(exc, DaemonNotRunning):
        message = exc.message.rstrip(".")
        if "not running" not in message:
            message = f"the graphmem daemon is not running ({message})"
        return ToolError(f"{message}. {START_HINT}")
    return ToolError(f"{type(exc).__name__}: {exc.message}")


@contextmanager
def _graphmem_errors() -> Iterator[None]:
    try:
        yield
    except GraphMemError as exc:
        raise tool_error(exc) from exc


class Backend:
    """The one GraphMem client of the bridge, created on first use (the daemon may start later)."""

    def __init__(
        self,
        factory: Callable[[], GraphMem],
        *,
        default_repo: str = "",
        cwd: Path | None = None,
    ) -> None:
        self._factory = factory
        self._client: GraphMem | None = None
        self._lock = threading.Lock()
        self._pinned_repo = default_repo
        self._cwd = cwd.resolve() if cwd is not None else None
        self._detected_repo = ""

    @classmethod
    def from_env(cls) -> Backend:
        """A backend from ``GRAPHMEM_ADDRESS``, ``GRAPHMEM_HOME``, ``GRAPHMEM_REPO`` and the working directory."""
        address = os.environ.get("GRAPHMEM_ADDRESS") or None
        home = os.environ.get("GRAPHMEM_HOME") or None

        def factory() -> GraphMem:
            return GraphMem(address, home=home)

        return cls(factory, default_repo=os.environ.get("GRAPHMEM_REPO", ""), cwd=Path.cwd())

    def client(self) -> GraphMem:
        """The shared client, created on first use."""
        with self._lock:
            if self._client is None:
                self._client = self._factory()
            return self._client

    def repo(self, given: str) -> str:
        """The repository a call is scoped to: the argument, GRAPHMEM_REPO, or the registered
        repository with the deepest root containing the working directory. Outside every
        registered repository: NotFound naming the candidates and how to pick one."""
        if given:
            return given
        if self._pinned_repo:
            return self._pinned_repo
        if not self._detected_repo:
            status = self.client().status()
            if self._cwd is not None:
                found = deepest_repository(status.repositories, self._cwd)
                self._detected_repo = found.id if found is not None else ""
            if not self._detected_repo:
                where = self._cwd if self._cwd is not None else Path("(unknown working directory)")
                raise NotFound(
                    outside_message(where, status.repositories, flag="the tool's `repo` argument (or GRAPHMEM_REPO)")
                )
        return self._detected_repo

    def close(self) -> None:
        """Close the client, if one was created."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


def _client_name(ctx: Context[Any, Any] | None) -> str:
    if ctx is None:
        return ""
    try:
        params = ctx.request_context.session.client_params
    except ValueError:  # no request context (called outside a request)
        return ""
    return params.client_info.name if params is not None else ""


# ---------------------------------------------------------------------------- the tools

CategoryName = Literal[
    "decision", "constraint", "bug-cause", "architecture", "convention", "tooling", "exploration", "other"
]
Refs = tuple[str, ...]
RepoArg = Annotated[str, Field(description=_REPO)]


class GraphMemTools:
    """The bridge's tools; each is a plain (sync) method the SDK runs on a worker thread."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def _source(self, ctx: Context[Any, Any] | None) -> str:
        name = _client_name(ctx)
        return f"mcp:{name}" if name else "mcp"

    def save_observation(
        self,
        text: Annotated[str, Field(description="The fact and why, standing alone.")],
        anchors: Annotated[
            Refs,
            Field(description="`path/file.py::Class.method` or `path/file.py`."),
        ],
        category: CategoryName = "other",
        tags: Annotated[Refs, Field(description="Free-form labels.")] = (),
        supersedes: Annotated[Refs, Field(description="Ids this replaces.")] = (),
        shared: bool = False,
        repo: RepoArg = "",
        ctx: Context[Any, Any] | None = None,
    ) -> Annotated[CallToolResult, ObservationOut]:
        """Tool ``save_observation``: save an observation anchored to symbols or files."""
        with _graphmem_errors():
            client = self.backend.client()
            obs = client.observe(
                text,
                anchors=list(anchors),
                repo=self.backend.repo(repo),
                category=Category(category),
                tags=list(tags),
                source=self._source(ctx),
                supersedes=list(supersedes),
                shared=shared,
            )
        lines = [f"Saved observation {obs.id}.", _observation_text(obs, prefix="  ")]
        return _result("\n".join(lines), _observation_out(obs))

    def recall(
        self,
        text: Annotated[str, Field(description="Keywords, a question.")] = "",
        files: Annotated[Refs, Field(description="Paths relative to the repository.")] = (),
        symbols: Annotated[Refs, Field(description="`path/file.py::Class.method` refs.")] = (),
        hops: Annotated[int, Field(ge=0, le=6, description="Graph steps; 0: anchors only.")] = 2,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        budget_tokens: Annotated[int, Field(ge=0, description="0: no budget.")] = 2000,
        fresh_only: bool = False,
        repo: RepoArg = "",
    ) -> Annotated[CallToolResult, RecallOut]:
        """Tool ``recall``: the observations relevant to text, files or symbols."""
        with _graphmem_errors():
            client = self.backend.client()
            result = client.recall(
                text,
                files=list(files),
                symbols=list(symbols),
                repo=self.backend.repo(repo),
                hops=hops,
                limit=limit,
                budget=budget_tokens,
                fresh_only=fresh_only,
            )
        return _result(_recall_text(result), _recall_out(result))

    def session_brief(
        self,
        files: Annotated[Refs, Field(description="Paths relative to the repository.")] = (),
        text: Annotated[str, Field(description="The task, briefly.")] = "",
        budget_tokens: Annotated[int, Field(ge=50)] = 1500,
        fresh_only: bool = False,
        repo: RepoArg = "",
    ) -> Annotated[CallToolResult, BriefOut]:
        """Tool ``session_brief``: what is known about the task (or the repository), within a budget."""
        with _graphmem_errors():
            client = self.backend.client()
            scope = self.backend.repo(repo)
            brief = client.brief(files=list(files), text=text, repo=scope, budget=budget_tokens, fresh_only=fresh_only)
        left_out = brief.left_out
        body = brief.text.strip() or "No observations recorded for this scope yet."
        footer = f"({len(brief.observation_ids)} observation(s), ~{brief.tokens} tokens; "
        footer += f"{_freshness_text(brief.freshness)})"
        if left_out and (files or text):  # a repository brief says it itself
            footer += f"\n{left_out} more observation(s) did not fit budget_tokens: raise it, or call recall."
        out = BriefOut(
            text=brief.text,
            observation_ids=list(brief.observation_ids),
            freshness=_freshness_out(brief.freshness),
            tokens=brief.tokens,
            left_out=left_out,
        )
        if "[STALE" in body or "[SUSPECT" in body:  # the daemon marks stale and suspect observations
            footer += f"\n\n{_STALE}"
        return _result(f"{body}\n\n{footer}", out)

    def list_stale(
        self,
        repo: RepoArg = "",
        file: Annotated[str, Field(description="Only this file's.")] = "",
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
    ) -> Annotated[CallToolResult, ObservationListOut]:
        """Tool ``list_stale``: observations whose anchored code changed."""
        with _graphmem_errors():
            client = self.backend.client()
            found = client.list(
                repo=self.backend.repo(repo),
                statuses=[ObservationStatus.STALE],
                file=file,
                limit=limit,
            )
        if not found:
            text = "No stale observations" + (f" for {file}." if file else ".")
        else:
            lines = [f"{len(found)} stale observation(s):"]
            lines.extend(_observation_text(o, head=f"{n}. ") for n, o in enumerate(found, 1))
            lines.extend(_stale_footer(found))
            text = "\n".join(lines)
        return _result(text, ObservationListOut(observations=[_observation_out(o) for o in found]))

    def confirm_observation(
        self,
        id: str,
        note: Annotated[str, Field(description="What you checked.")] = "",
        ctx: Context[Any, Any] | None = None,
    ) -> Annotated[CallToolResult, ObservationOut]:
        """Tool ``confirm_observation``: mark a stale or suspect observation still true."""
        with _graphmem_errors():
            try:
                here = self.backend.repo("")  # the checkout the agent works in, when it is in one
            except NotFound:
                here = ""
            obs = self.backend.client().confirm(id, confirmed_by=self._source(ctx), note=note, repo=here)
        text = f"Confirmed observation {obs.id}; it is {obs.status.value} now.\n" + _observation_text(obs, prefix="  ")
        return _result(text, _observation_out(obs))

    def lookup_symbol(
        self,
        ref: Annotated[str, Field(description="`path/file.py::Class.method` or a symbol id.")],
        repo: RepoArg = "",
    ) -> Annotated[CallToolResult, SymbolDetailOut]:
        """Tool ``lookup_symbol``: a symbol's detail and observations."""
        with _graphmem_errors():
            client = self.backend.client()
            detail = client.symbol(ref, repo=self.backend.repo(repo))
        return _result(_symbol_detail_text(detail), _symbol_detail_out(detail))

    def find_symbols(
        self,
        pattern: Annotated[str, Field(description="Name with `*`/`?` wildcards.")],
        kinds: Annotated[Refs, Field(description="e.g. class, function, method.")] = (),
        limit: Annotated[int, Field(ge=1, le=500)] = 30,
        repo: RepoArg = "",
    ) -> Annotated[CallToolResult, SymbolListOut]:
        """Tool ``find_symbols``: symbols matching a wildcard pattern."""
        with _graphmem_errors():
            client = self.backend.client()
            found = client.find_symbols(pattern, repo=self.backend.repo(repo), kinds=list(kinds), limit=limit)
        if not found:
            text = f"No symbols match {pattern!r}."
        else:
            lines = [f"{len(found)} symbol(s):"]
            for s in found:
                line = f"- {_symbol_line(s)}"
                if s.signature:
                    line += f"  {s.signature}"
                lines.append(line)
            text = "\n".join(lines)
        return _result(text, SymbolListOut(symbols=[_symbol_out(s) for s in found]))

    def resolve_symbol(
        self,
        ref: Annotated[str, Field(description="A short name.")],
        repo: RepoArg = "",
    ) -> Annotated[CallToolResult, SymbolListOut]:
        """Tool ``resolve_symbol``: full refs for a short symbol name."""
        with _graphmem_errors():
            client = self.backend.client()
            resolved = client.resolve_symbol(ref, repo=self.backend.repo(repo))
        if not resolved.matches:
            text = f"Nothing resembles {ref!r}."
        else:
            head = f"{ref!r} is {_symbol_line(resolved.matches[0])}" if resolved.exact else f"Closest to {ref!r}:"
            text = "\n".join([head] + [f"- {_symbol_line(s)}" for s in resolved.matches[int(resolved.exact) :]])
        return _result(text, SymbolListOut(symbols=[_symbol_out(s) for s in resolved.matches]))


def build_server(tools: GraphMemTools) -> MCPServer[Any]:
    """The MCP server with graphmem's tools.

    Note: the SDK's ``MCPServer`` constructor calls ``logging.basicConfig`` (a no-op once the
    root logger has a handler, which :func:`main` sees to).
    """
    server: MCPServer[Any] = MCPServer(
        "graphmem",
        title="graphmem: code-graph memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    confirms = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    table: list[tuple[Callable[..., CallToolResult], str, str, str, ToolAnnotations]] = [
        (tools.save_observation, "save_observation", "Save observation", _SAVE_DESCRIPTION, writes),
        (tools.recall, "recall", "Recall", _RECALL_DESCRIPTION, read_only),
        (tools.session_brief, "session_brief", "Session brief", _BRIEF_DESCRIPTION, read_only),
        (tools.list_stale, "list_stale", "List stale", _LIST_STALE_DESCRIPTION, read_only),
        (
            tools.confirm_observation,
            "confirm_observation",
            "Confirm observation",
            _CONFIRM_DESCRIPTION,
            confirms,
        ),
        (tools.lookup_symbol, "lookup_symbol", "Look up symbol", _LOOKUP_DESCRIPTION, read_only),
        (tools.find_symbols, "find_symbols", "Find symbols", _FIND_DESCRIPTION, read_only),
        (tools.resolve_symbol, "resolve_symbol", "Resolve symbol", _RESOLVE_DESCRIPTION, read_only),
    ]
    for fn, name, title, description, hints in table:
        server.add_tool(fn, name=name, title=title, description=description, annotations=hints)
        tool = server._tool_manager.get_tool(name)  # the SDK has no public hook for the schema
        if tool is not None:
            _drop_titles(tool.parameters)
            if tool.output_schema is not None:
                _drop_titles(tool.output_schema)
                _drop_model_descriptions(tool.output_schema)
    return server


def _drop_titles(schema: object) -> None:
    """Remove pydantic's generated ``title`` keys (``"title": "Budget Tokens"``) and empty
    defaults (an optional property is simply not ``required``) from a JSON schema, in place:
    they cost context on every turn and say nothing new."""
    if isinstance(schema, dict):
        if isinstance(schema.get("title"), str):
            del schema["title"]
        if "default" in schema and schema["default"] in ("", [], None):
            del schema["default"]
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for prop in value.values():
                    _drop_titles(prop)
            else:
                _drop_titles(value)
    elif isinstance(schema, list):
        for item in schema:
            _drop_titles(item)


def _drop_model_descriptions(schema: object) -> None:
    """Remove the ``description`` pydantic copies from each output model's class docstring (a
    paragraph for programmers, repeated in every tool's output schema); field descriptions stay."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
            schema.pop("description", None)
        for value in schema.values():
            _drop_model_descriptions(value)
    elif isinstance(schema, list):
        for item in schema:
            _drop_model_descriptions(item)


def tool_definitions_size(server: MCPServer[Any]) -> int:
    """Characters of what ``tools/list`` sends an agent for every tool: name, title, description
    and input schema (as compact JSON)."""
    total = 0
    for tool in server._tool_manager.list_tools():
        total += len(tool.name) + len(tool.title or "") + len(tool.description or "")
        total += len(json.dumps(tool.parameters, separators=(",", ":")))
    return total


def main() -> None:
    """Run the MCP server on stdin/stdout until the client closes it (``graphmem mcp``)."""
    level = os.environ.get("GRAPHMEM_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(
        stream=sys.stderr,
        level=level if level in logging.getLevelNamesMapping() else logging.WARNING,
        format="graphmem-mcp %(levelname)s %(name)s: %(message)s",
    )
    backend = Backend.from_env()
    try:
        build_server(GraphMemTools(backend)).run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        backend.close()


if __name__ == "__main__":
    main()
