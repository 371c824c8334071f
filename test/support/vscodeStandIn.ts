// A stand-in `vscode` module for running the built extension outside an editor: the
// activation bench and the bundle tests require dist/extension.js with it and call
// activate(), so activation runs its real code paths without VS Code. One source, so the
// bench measures the same activation the tests check.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The VS Code version the stand-in reports: new enough that feature detection takes every branch a current editor takes. */
export const STAND_IN_VSCODE_VERSION = '1.105.0';

/** Top-level names of the `vscode` module (namespaces, classes, enums, functions), read from its types. */
function vscodeApiNames(repoRoot: string): string[] {
  const dts = readFileSync(join(repoRoot, 'node_modules/@types/vscode/index.d.ts'), 'utf8');
  const names = [...dts.matchAll(/^\t{1}export (?:namespace|class|enum|const|function|let) ([A-Za-z_]\w*)/gm)].map((m) => m[1]);
  return [...new Set(names)];
}

/**
 * The stand-in's source, to be written to a file and resolved for `require('vscode')`.
 * Every property is a callable that returns another stand-in; assignments stick. The module's
 * top-level names are its own keys, because esbuild's ESM interop copies own keys.
 */
export function vscodeStandInSource(repoRoot: string): string {
  return `const NAMES = ${JSON.stringify(vscodeApiNames(repoRoot))};
const handler = {
  get(target, prop) {
    if (prop === 'then') return undefined;
    if (prop === Symbol.toPrimitive) return () => '';
    if (!(prop in target)) target[prop] = makeStub();
    return target[prop];
  },
  // Assignments stick, even to a function's read-only own names (a status bar item's
  // \`name\`, say), as they would on the real API objects.
  set(target, prop, value) {
    Object.defineProperty(target, prop, { value, writable: true, configurable: true, enumerable: true });
    return true;
  },
  apply() { return makeStub(); },
  construct() { return makeStub(); },
};
function makeStub() { return new Proxy(function () {}, handler); }
module.exports = { ...Object.fromEntries(NAMES.map((name) => [name, makeStub()])), version: ${JSON.stringify(STAND_IN_VSCODE_VERSION)} };
`;
}

/**
 * A JavaScript expression for the ExtensionContext handed to activate(), in a script where
 * `vscode` is the required stand-in: every member is a stand-in too (a property of any stand-in
 * is another), so the context's storage and secrets run the code paths a real one does.
 */
export const STAND_IN_CONTEXT_JS = `(() => {
  const any = vscode.window;
  return { subscriptions: [], secrets: any.secrets, extensionUri: any.uri, globalState: any.globalState,
    workspaceState: any.workspaceState, storageUri: any.storageUri, globalStorageUri: any.globalStorageUri,
    extensionPath: '/', asAbsolutePath: (p) => p, extension: any.extension };
})()`;
