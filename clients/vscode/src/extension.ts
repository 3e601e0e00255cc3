// graphmem for VS Code: launches `graphmem lsp` with vscode-languageclient and adds what the
// language server protocol has no place for: an input box for a new note's text, a picker for
// a symbol's notes, the recall tree view and the status bar item.
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import {
  addNoteArguments,
  CATEGORIES,
  Note,
  notePicks,
  RecallResult,
  recallTree,
  ServerStatus,
  serverSettings,
  statusView,
  TreeNode,
} from "./format";

let client: LanguageClient | undefined;

function settings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration("graphmem");
  return serverSettings(
    c.get<string>("diagnosticSeverity.stale", "information"),
    c.get<string>("diagnosticSeverity.suspect", "hint"),
    c.get<string>("user", ""),
    c.get<string>("diagnosticSeverity.reference", "warning"),
    c.get<string>("diagnosticSeverity.suspectReference", "information"),
    c.get<string>("diagnosticSeverity.deprecatedReference", "hint"),
  );
}

async function run<T>(command: string, args: unknown[]): Promise<T> {
  if (client === undefined) {
    throw new Error("graphmem: the language server is not running");
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) as Promise<T>;
}

async function askNote(): Promise<{ text: string; category: string } | undefined> {
  const text = await vscode.window.showInputBox({
    title: "graphmem: Add note",
    prompt: "What should the next person reading this code know?",
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : "a note needs some text"),
  });
  if (!text) {
    return undefined;
  }
  const category = await vscode.window.showQuickPick(CATEGORIES, { title: "graphmem: category", placeHolder: "other" });
  return { text: text.trim(), category: category ?? "other" };
}

async function showNotes(notes: Note[], subject: string): Promise<void> {
  if (notes.length === 0) {
    return;
  }
  const pick = await vscode.window.showQuickPick(notePicks(notes), { title: `graphmem: notes on ${subject}`, matchOnDetail: true });
  const note = pick && notes.find((n) => n.id === pick.id);
  if (!note || (note.status !== "stale" && note.status !== "suspect")) {
    return;
  }
  const action = await vscode.window.showQuickPick(["Confirm: it still holds", "Archive it", "Leave it"], { title: note.statusText });
  if (action?.startsWith("Confirm")) {
    await run("graphmem.confirm", [note.id]);
  } else if (action?.startsWith("Archive")) {
    await run("graphmem.archive", [note.id]);
  }
}

class RecallView implements vscode.TreeDataProvider<TreeNode> {
  private nodes: TreeNode[] = [];
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  show(result: RecallResult): void {
    this.nodes = recallTree(result);
    this.changed.fire(undefined);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const collapsed = node.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, collapsed);
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.contextValue;
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    return node === undefined ? this.nodes : node.children;
  }
}

function startClient(context: vscode.ExtensionContext, status: vscode.StatusBarItem): LanguageClient {
  const command = vscode.workspace.getConfiguration("graphmem").get<string>("path", "graphmem") || "graphmem";
  const serverOptions: ServerOptions = { command, args: ["lsp"], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    initializationOptions: settings(),
    middleware: {
      executeCommand: async (name, args, next) => {
        if (name === "graphmem.addNote" && args.length < 4) {
          const asked = await askNote();
          return asked ? next(name, addNoteArguments(args, asked.text, asked.category)) : undefined;
        }
        if (name === "graphmem.showNotes") {
          const shown = (await next(name, args)) as { ref: string; notes: Note[] };
          await showNotes(shown.notes, shown.ref);
          return shown;
        }
        return next(name, args);
      },
    },
  };
  const lc = new LanguageClient("graphmem", "graphmem", serverOptions, clientOptions);
  lc.onNotification("graphmem/status", (s: ServerStatus) => {
    const view = statusView(s);
    status.text = view.text;
    status.tooltip = view.tooltip;
    status.backgroundColor = view.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  });
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("graphmem.path")) {
        void vscode.window.showInformationMessage("graphmem: reload the window to use the new executable path");
      } else if (e.affectsConfiguration("graphmem")) {
        void lc.sendNotification("workspace/didChangeConfiguration", { settings: { graphmem: settings() } });
      }
    }),
  );
  void lc.start().catch((err: unknown) => {
    status.text = "$(error) graphmem";
    status.tooltip = `graphmem: cannot run \`${command} lsp\`: ${String(err)}. Set graphmem.path.`;
  });
  return lc;
}

export function activate(context: vscode.ExtensionContext): void {
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  const initial = statusView(undefined);
  status.text = initial.text;
  status.tooltip = initial.tooltip;
  status.command = "graphmem.showStatus";
  status.show();
  const recall = new RecallView();
  context.subscriptions.push(status, vscode.window.registerTreeDataProvider("graphmem.recall", recall));
  client = startClient(context, status);

  const editorPosition = (): { uri: string; line: number; character: number } | undefined => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showWarningMessage("graphmem: open a file first");
      return undefined;
    }
    const p = editor.selection.active;
    return { uri: editor.document.uri.toString(), line: p.line, character: p.character };
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("graphmem.addNoteHere", async () => {
      const at = editorPosition();
      const asked = at && (await askNote());
      if (at && asked) {
        const note = await run<Note>("graphmem.addNote", [at.uri, at.line, at.character, asked.text, asked.category]);
        void vscode.window.showInformationMessage(`graphmem: saved ${note.id} on ${note.anchors.join(", ")}`);
      }
    }),
    vscode.commands.registerCommand("graphmem.recallFile", async () => {
      const at = editorPosition();
      if (at) {
        recall.show(await run<RecallResult>("graphmem.recall", [at.uri, at.line]));
        await vscode.commands.executeCommand("graphmem.recall.focus");
      }
    }),
    vscode.commands.registerCommand("graphmem.confirmNote", async (node?: TreeNode) => {
      if (node?.noteId) {
        await run("graphmem.confirm", [node.noteId]);
        return;
      }
      const at = editorPosition();
      if (at) {
        const shown = await run<{ ref: string; notes: Note[] }>("graphmem.showNotes", [at.uri, "*"]);
        const open = shown.notes.filter((n) => n.status === "stale" || n.status === "suspect");
        if (open.length === 0) {
          void vscode.window.showInformationMessage("graphmem: no stale or suspect note in this file");
          return;
        }
        const pick = await vscode.window.showQuickPick(notePicks(open), { title: "graphmem: confirm which note still holds?" });
        if (pick) {
          await run("graphmem.confirm", [pick.id]);
        }
      }
    }),
    vscode.commands.registerCommand("graphmem.showStatus", async () => {
      const s = await run<ServerStatus>("graphmem.status", []);
      const view = statusView(s);
      void vscode.window.showInformationMessage(view.tooltip.split("\n").join(" · "));
    }),
  );
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}
