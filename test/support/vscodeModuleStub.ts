// A hand-made `vscode` module for unit tests of an adapter (src/**/vscode/) under plain mocha:
// only what the sync runner touches (settings, trust, workspace folders, a file watcher whose
// events the test fires, progress, messages recorded). `installVscodeStub()` makes
// `require('vscode')` resolve to it; import the adapter after installing.
import Module from 'node:module';
import { format } from 'node:util';

type Handler = (uri: { fsPath: string; scheme: string }) => unknown;

export interface StubWatcher {
  fire(kind: 'create' | 'change' | 'delete', fsPath: string): void;
  disposed: boolean;
}

export interface VscodeStub {
  settings: Record<string, unknown>;
  workspace: { isTrusted: boolean; workspaceFolders: Array<{ uri: { scheme: string; fsPath: string } }> };
  watchers: StubWatcher[];
  /** Every information and warning message shown, in order. */
  messages: string[];
  /** Answers a quick pick (the preview): the item to pick, or undefined (Escape). */
  pick?: (items: ReadonlyArray<Record<string, unknown>>) => unknown;
}

const uri = (fsPath: string) => ({ scheme: 'file', fsPath });

function makeStub(): { state: VscodeStub; module: Record<string, unknown> } {
  const state: VscodeStub = { settings: {}, workspace: { isTrusted: true, workspaceFolders: [] }, watchers: [], messages: [] };
  const configuration = (section?: string) => ({
    get: (key: string, fallback?: unknown) => state.settings[section ? `${section}.${key}` : key] ?? fallback,
    inspect: (key: string) => ({ globalValue: state.settings[key], defaultValue: undefined }),
  });
  const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose: () => undefined }) };
  const message = async (text: string) => {
    state.messages.push(text);
    return undefined;
  };
  const module = {
    workspace: {
      get isTrusted() {
        return state.workspace.isTrusted;
      },
      get workspaceFolders() {
        return state.workspace.workspaceFolders;
      },
      getConfiguration: configuration,
      createFileSystemWatcher: () => {
        const handlers: Record<string, Handler[]> = { create: [], change: [], delete: [] };
        const watcher: StubWatcher = { fire: (kind, fsPath) => handlers[kind].forEach((h) => h(uri(fsPath))), disposed: false };
        state.watchers.push(watcher);
        const on = (kind: string) => (handler: Handler) => {
          handlers[kind].push(handler);
          return { dispose: () => undefined };
        };
        return { onDidCreate: on('create'), onDidChange: on('change'), onDidDelete: on('delete'), dispose: () => (watcher.disposed = true) };
      },
    },
    window: {
      withProgress: (_options: unknown, work: (progress: { report(): void }, t: typeof token) => unknown) => Promise.resolve(work({ report: () => undefined }, token)),
      showInformationMessage: message,
      showWarningMessage: message,
      showErrorMessage: message,
      showQuickPick: async (items: unknown) => state.pick?.((await items) as ReadonlyArray<Record<string, unknown>>),
    },
    l10n: { t: (text: string, ...args: unknown[]) => text.replace(/\{(\d+)\}/g, (_m, i: string) => format('%s', args[Number(i)])) },
    Uri: { file: uri },
    RelativePattern: class {
      constructor(
        readonly base: unknown,
        readonly pattern: string,
      ) {}
    },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    CancellationError: class CancellationError extends Error {},
    QuickPickItemKind: { Separator: -1, Default: 0 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
  };
  return { state, module };
}

let installed: VscodeStub | undefined;

/** Makes `require('vscode')` return the stub (once per process) and hands back its state. */
export function installVscodeStub(): VscodeStub {
  if (installed) return installed;
  const { state, module } = makeStub();
  const id = '\0vscode-stub';
  const internals = Module as unknown as {
    _resolveFilename: (request: string, ...rest: unknown[]) => string;
    _cache: Record<string, unknown>;
  };
  const resolve = internals._resolveFilename;
  internals._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? id : resolve.call(this, request, ...rest);
  };
  internals._cache[id] = { id, filename: id, loaded: true, exports: module, children: [], paths: [] };
  installed = state;
  return state;
}
