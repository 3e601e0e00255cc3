// Pure parts of the extension (no `vscode` import): the shapes `graphmem lsp` sends, the status
// bar text, the recall tree, the note pickers and the server's initialization options. Tested
// with node's test runner (src/test/format.test.ts).

/** A note as the server's commands return it (graphmem.lsp.present.note_json). */
export interface Note {
  id: string;
  text: string;
  category: string;
  status: string; // fresh | stale | suspect | superseded | archived
  statusText: string;
  anchors: string[];
  tags: string[];
  source: string;
  created: string | null;
  age: string;
  confirmedBy: string;
  confirmed: string | null;
  reasons: string[];
  needsReview: boolean;
}

/** One step of a why-path. */
export interface Hop {
  from: string;
  edge: string;
  to: string;
}

/** `graphmem.recall`'s answer. */
export interface RecallResult {
  results: { note: Note; score: number; distance: number; why: string; path: Hop[] }[];
  current: boolean;
  warnings: string[];
}

/** A repository in the status. */
export interface RepoStatus {
  id: string;
  root: string;
  state: string;
  current: boolean;
  pendingChanges: number;
  filesDone: number;
  filesTotal: number;
  observations: number;
  stale: number;
  suspect: number;
}

/** The `graphmem/status` notification (graphmem.lsp.present.status_json). */
export interface ServerStatus {
  daemon: "running" | "degraded" | "down";
  summary: string;
  detail: string;
  stale?: number;
  suspect?: number;
  observations?: number;
  repositories: RepoStatus[];
}

/** What the status bar shows. */
export interface StatusView {
  text: string;
  tooltip: string;
  warning: boolean;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The status bar item for a server status (daemon health and index freshness). */
export function statusView(s: ServerStatus | undefined): StatusView {
  if (s === undefined) {
    return { text: "$(loading~spin) graphmem", tooltip: "graphmem: starting the language server", warning: false };
  }
  if (s.daemon === "down") {
    const why = s.detail ? ` (${s.detail})` : "";
    return {
      text: "$(circle-slash) graphmem",
      tooltip: `graphmem: the daemon is not running${why}. Start it with: graphmem daemon start --repo PATH`,
      warning: true,
    };
  }
  const behind = s.repositories.filter((r) => !r.current);
  const notes = `${plural(s.observations ?? 0, "note")} (${s.stale ?? 0} stale, ${s.suspect ?? 0} suspect)`;
  const repoLines = s.repositories.map((r) => {
    const where = r.current ? "current" : `${r.state} ${r.filesDone}/${r.filesTotal}, ${r.pendingChanges} pending`;
    return `${r.id} — ${where}`;
  });
  const tooltip = [`graphmem: daemon ${s.daemon}${s.detail ? ` (${s.detail})` : ""}`, notes, ...repoLines].join("\n");
  if (s.daemon === "degraded") {
    return { text: "$(warning) graphmem", tooltip, warning: true };
  }
  if (behind.length > 0) {
    const done = behind.reduce((n, r) => n + r.filesDone, 0);
    const total = behind.reduce((n, r) => n + r.filesTotal, 0);
    return { text: `$(sync~spin) graphmem ${done}/${total}`, tooltip, warning: false };
  }
  const stale = s.stale ?? 0;
  return { text: stale > 0 ? `$(check) graphmem · ${stale} stale` : "$(check) graphmem", tooltip, warning: false };
}

/** A node of the recall tree (turned into a vscode.TreeItem by the extension). */
export interface TreeNode {
  label: string;
  description: string;
  tooltip: string;
  contextValue: string;
  noteId?: string;
  children: TreeNode[];
}

const MAX_LABEL = 80;

/** The first line of a text, cut to `max` characters with an ellipsis. */
export function firstLine(text: string, max: number = MAX_LABEL): string {
  const line = text.split(/\r?\n/, 1)[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const MARK: Record<string, string> = { stale: "⚠ ", suspect: "? " };

/** The recall tree: one node per ranked note (its why-path and reasons below it). */
export function recallTree(result: RecallResult): TreeNode[] {
  return result.results.map((r, i) => {
    const n = r.note;
    const why: TreeNode[] = r.path.map((h) => ({
      label: `${h.from} -${h.edge}-> ${h.to}`,
      description: "",
      tooltip: "how the walk reached it",
      contextValue: "graphmem.hop",
      children: [],
    }));
    const reasons: TreeNode[] = n.reasons.map((reason) => ({
      label: reason,
      description: n.status,
      tooltip: reason,
      contextValue: "graphmem.reason",
      children: [],
    }));
    const anchor: TreeNode[] =
      r.path.length === 0
        ? [{ label: `anchored here: ${n.anchors.join(", ")}`, description: "", tooltip: r.why, contextValue: "graphmem.hop", children: [] }]
        : [];
    return {
      label: `${i + 1}. ${MARK[n.status] ?? ""}${firstLine(n.text)}`,
      description: `${n.category} · ${r.score.toFixed(3)} · ${r.distance === 0 ? "here" : plural(r.distance, "hop")}`,
      tooltip: [n.text, `${n.statusText} · saved ${n.age}${n.source ? ` by ${n.source}` : ""}`, `why: ${r.why || n.anchors.join(", ")}`, n.id].join("\n"),
      contextValue: n.status === "stale" || n.status === "suspect" ? "graphmem.note.stale" : "graphmem.note",
      noteId: n.id,
      children: [...reasons, ...why, ...anchor],
    };
  });
}

/** An entry of a note picker. */
export interface NotePick {
  label: string;
  description: string;
  detail: string;
  id: string;
}

/** The notes as quick-pick entries (stale and suspect first). */
export function notePicks(notes: Note[]): NotePick[] {
  const rank = (n: Note): number => (n.status === "stale" ? 0 : n.status === "suspect" ? 1 : 2);
  return [...notes]
    .sort((a, b) => rank(a) - rank(b))
    .map((n) => ({
      label: `${MARK[n.status] ?? ""}${firstLine(n.text)}`,
      description: `${n.category} · ${n.status} · ${n.age}`,
      detail: n.status === "fresh" ? `${n.anchors.join(", ")}${n.confirmedBy ? ` · confirmed by ${n.confirmedBy}` : ""}` : n.statusText,
      id: n.id,
    }));
}

/** The categories a note can have (the first is the default). */
export const CATEGORIES = ["other", "decision", "constraint", "bug-cause", "architecture", "convention", "tooling", "exploration"];

/** The settings the extension passes to the server (initializationOptions / configuration). */
export function serverSettings(
  stale: string,
  suspect: string,
  user: string,
  reference = "warning",
  suspectReference = "information",
  deprecatedReference = "hint",
): Record<string, unknown> {
  const settings: Record<string, unknown> = {
    diagnosticSeverity: { stale, suspect, reference, suspectReference, deprecatedReference },
    notesAsMessage: false, // the extension shows notes in a picker
    clientPrompts: true, // and asks for a note's text itself
  };
  if (user.trim()) {
    settings.user = user.trim();
  }
  return settings;
}

/** `graphmem.addNote`'s arguments: the position a code action gave, plus the text and category asked for. */
export function addNoteArguments(args: unknown[], text: string, category: string): unknown[] {
  if (args.length < 3) {
    throw new Error("graphmem.addNote needs the document URI, line and character");
  }
  return [args[0], args[1], args[2], text, category];
}
