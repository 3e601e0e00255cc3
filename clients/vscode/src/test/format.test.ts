// The extension's pure parts, run by node's test runner: `npm test` (after `npm run compile`).
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { addNoteArguments, firstLine, Note, notePicks, RecallResult, recallTree, ServerStatus, serverSettings, statusView } from "../format";

function note(id: string, status: string, extra: Partial<Note> = {}): Note {
  return {
    id,
    text: `note ${id}\nsecond line`,
    category: "constraint",
    status,
    statusText: status === "fresh" ? "fresh" : `${status}: the body of a.py::f changed (2 h ago)`,
    anchors: ["a.py::f"],
    tags: [],
    source: "cli",
    created: "2026-01-02T03:04:05Z",
    age: "3 d ago",
    confirmedBy: "",
    confirmed: null,
    reasons: status === "fresh" ? [] : ["the body of a.py::f changed (2 h ago)"],
    needsReview: false,
    ...extra,
  };
}

const repo = { id: "app-1", root: "/src/app", state: "ready", current: true, pendingChanges: 0, filesDone: 9, filesTotal: 9, observations: 3, stale: 1, suspect: 0 };

test("the status bar says when the daemon is down, how to start it, and nothing else", () => {
  const view = statusView({ daemon: "down", summary: "", detail: "nothing answers at unix:/x.sock", repositories: [] });
  assert.equal(view.text, "$(circle-slash) graphmem");
  assert.equal(view.warning, true);
  assert.match(view.tooltip, /not running \(nothing answers at unix:\/x\.sock\)\. Start it with: graphmem daemon start --repo PATH/);
  assert.equal(statusView(undefined).text, "$(loading~spin) graphmem");
});

test("the status bar shows stale notes when the index is current, progress while indexing", () => {
  const up: ServerStatus = { daemon: "running", summary: "", detail: "", observations: 3, stale: 1, suspect: 0, repositories: [repo] };
  const view = statusView(up);
  assert.equal(view.text, "$(check) graphmem · 1 stale");
  assert.equal(view.tooltip, "graphmem: daemon running\n3 notes (1 stale, 0 suspect)\napp-1 — current");
  const indexing = statusView({ ...up, repositories: [repo, { ...repo, id: "lib-2", state: "indexing", current: false, filesDone: 40, filesTotal: 120, pendingChanges: 2 }] });
  assert.equal(indexing.text, "$(sync~spin) graphmem 40/120");
  assert.match(indexing.tooltip, /lib-2 — indexing 40\/120, 2 pending/);
  const degraded = statusView({ ...up, daemon: "degraded", detail: "watcher: inotify limit" });
  assert.equal(degraded.text, "$(warning) graphmem");
  assert.equal(degraded.warning, true);
  assert.match(degraded.tooltip, /^graphmem: daemon degraded \(watcher: inotify limit\)/);
  assert.equal(statusView({ ...up, stale: 0 }).text, "$(check) graphmem");
});

test("the recall tree lists ranked notes with their why-paths and stale reasons", () => {
  const result: RecallResult = {
    current: true,
    warnings: [],
    results: [
      { note: note("n1", "stale"), score: 0.2451, distance: 2, why: "api.py::create -CALLS-> a.py::f", path: [{ from: "api.py::create", edge: "CALLS", to: "a.py::f" }] },
      { note: note("n2", "fresh"), score: 0.1, distance: 0, why: "", path: [] },
    ],
  };
  const [first, second] = recallTree(result);
  assert.equal(first.label, "1. ⚠ note n1");
  assert.equal(first.description, "constraint · 0.245 · 2 hops");
  assert.equal(first.contextValue, "graphmem.note.stale");
  assert.equal(first.noteId, "n1");
  assert.deepEqual(first.children.map((c) => c.label), ["the body of a.py::f changed (2 h ago)", "api.py::create -CALLS-> a.py::f"]);
  assert.match(first.tooltip, /why: api\.py::create -CALLS-> a\.py::f/);
  assert.equal(second.label, "2. note n2");
  assert.equal(second.description, "constraint · 0.100 · here");
  assert.equal(second.contextValue, "graphmem.note");
  assert.deepEqual(second.children.map((c) => c.label), ["anchored here: a.py::f"]);
});

test("note pickers put stale and suspect notes first", () => {
  const picks = notePicks([note("a", "fresh", { confirmedBy: "alice" }), note("b", "suspect"), note("c", "stale")]);
  assert.deepEqual(picks.map((p) => p.id), ["c", "b", "a"]);
  assert.equal(picks[0].label, "⚠ note c");
  assert.equal(picks[1].label, "? note b");
  assert.equal(picks[2].detail, "a.py::f · confirmed by alice");
  assert.equal(picks[0].detail, "stale: the body of a.py::f changed (2 h ago)");
});

test("labels are one line, cut with an ellipsis", () => {
  assert.equal(firstLine("short\nmore"), "short");
  assert.equal(firstLine("x".repeat(100), 10), "xxxxxxxxx…");
});

test("server settings and the add-note arguments", () => {
  assert.deepEqual(serverSettings("warning", "off", " bob ", "error", "hint", "off"), {
    diagnosticSeverity: {
      stale: "warning",
      suspect: "off",
      reference: "error",
      suspectReference: "hint",
      deprecatedReference: "off",
    },
    notesAsMessage: false,
    clientPrompts: true,
    user: "bob",
  });
  assert.equal("user" in serverSettings("hint", "hint", ""), false);
  assert.deepEqual(serverSettings("hint", "hint", "").diagnosticSeverity, {
    stale: "hint",
    suspect: "hint",
    reference: "warning",
    suspectReference: "information",
    deprecatedReference: "hint",
  });
  assert.deepEqual(addNoteArguments(["file:///a.py", 3, 4], "text", "decision"), ["file:///a.py", 3, 4, "text", "decision"]);
  assert.throws(() => addNoteArguments(["file:///a.py"], "t", "other"), /needs the document URI, line and character/);
});
