// Lint enforces the layers of docs/architecture.md: what a file may import follows from
// its path. Two rules do it:
// - `no-restricted-imports` keeps `vscode` (and, in the webview, Node) out of the
//   vscode-free layers; `vscode` is not a file, so a path rule cannot see it;
// - `import/no-restricted-paths` checks every relative import by the file it resolves to:
//   features reach each other only through their public `<feature>Feature.ts` (or a
//   vscode-free entry point listed in PUBLIC_CORE), cores never reach adapters or the
//   webview protocol (the chat engine knows no front end), the webview sees only the
//   chat protocol.
// Every top-level folder of src/ must be covered by a zone: lint stops with an error naming
// a new folder that is not (foldersWithoutZone, below), so a layer cannot appear unchecked.
// test/architecture/importZones.test.ts proves each zone still reports its violation.
import js from '@eslint/js';
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

/** Every feature folder: `core/` (no vscode), `vscode/` (adapters), `<feature>Feature.ts` (public surface). */
export const FEATURES = ['chat', 'volumes', 'upload', 'sync', 'connection', 'nativeChat'];

/**
 * Besides its `<feature>Feature.ts`, a feature may offer vscode-free entry points other
 * features' cores (and the CLI) use. The chat engine's `ask` and its answer events are one:
 * VS Code's own Chat (nativeChat) streams single requests through it. The retrieval engine
 * (search, fetch, list, ask over the volumes) is another: the LM tools, the CLI and the MCP
 * server share it.
 */
export const PUBLIC_CORE = { chat: ['./core/answerStream.ts'], volumes: ['./core/retrieval.ts'] };

const publicCoresOf = (feature) => Object.entries(PUBLIC_CORE).flatMap(([owner, files]) => (owner === feature ? [] : files.map((file) => `./${owner}/${file.slice(2)}`)));

/** The layers free of `vscode`: they run under plain mocha and serve the CLI and the MCP server. */
const VSCODE_FREE = ['src/api/**', 'src/*/core/**', 'src/chat/panel/**', 'src/cli/**', 'src/mcp/**', 'src/webview/**', 'src/chat/protocol.ts'];

const noVscode = {
  name: 'vscode',
  message: 'This layer is vscode-free (docs/architecture.md): move the VS Code part to an adapter in src/<feature>/vscode/.',
};

/**
 * Files both bundles include (the extension host and the webview): they import nothing, so
 * the webview never pulls in host code through them. The chat parameter limits live with
 * the client's request rules (src/api must not depend on a feature) and the webview reads
 * that one file directly.
 */
const IMPORT_FREE = ['src/api/chatParameterLimits.ts'];

/**
 * Files both bundles include that may import types only, and only from the files their zone
 * allows: the protocol derives its view types from the engine's type-only declaration
 * (src/chat/core/conversationTypes.ts), which itself may read only the parameter limits.
 * Type imports vanish from both bundles, so the webview still pulls in no host code.
 */
const TYPE_ONLY_IMPORTS = ['src/chat/protocol.ts', 'src/chat/core/conversationTypes.ts'];

/**
 * The one file both bundles include that imports something at run time: the chat parameters'
 * words in the UI language (issue 26), so a refusal reads the same in the panel and in VS
 * Code's Chat. It may import exactly `@vscode/l10n` (the strings) and the parameter table
 * (itself import-free), nothing else, so the webview still pulls in no host code through it;
 * the webview zone allows exactly this file. test/architecture/importZones.test.ts proves the
 * exception stays this narrow.
 */
export const SHARED_WORDING = 'src/common/core/parameterText.ts';
const SHARED_WORDING_IMPORTS = ['@vscode/l10n', '../../api/chatParameterLimits'];
const sharedWordingImport = `/^(${SHARED_WORDING_IMPORTS.map((spec) => spec.replace(/[./@]/g, (c) => `\\${c}`)).join('|')})$/`;

/** Files that may import only what the zone's `except` lists (paths relative to `from`). */
/**
 * The VS Code side that shows text to the user: the entry point, each feature's wiring and
 * adapters, the shared plumbing. A string literal (or a template with words) in a place VS
 * Code shows to the user must go through `vscode.l10n.t(...)` (issue 26): lint refuses it
 * as a message or button of `window.show…Message`, as a label, description, detail,
 * placeholder, prompt, title, tooltip or text of an object (quick pick items, input boxes,
 * progress, tree items, tool confirmations), assigned to such a property (status bar items,
 * tree items), as the text of a tree item or Markdown string, and as chat output
 * (`markdown`, `progress`, `warning`). test/architecture/l10nLint.test.ts proves each fires.
 */
export const LOCALISED_FILES = ['src/extension.ts', 'src/*/*Feature.ts', 'src/*/vscode/**'];

/** Words in a literal: not a codicon (`$(key)`), not a lone symbol or separator. */
const WORDS = String.raw`/^(?!\$\([\w~-]+\)$)[\s\S]*[A-Za-z]{2}/`;
const TEXT = `Literal[value=${WORDS}], TemplateLiteral:has(TemplateElement[value.raw=${WORDS}])`;
const childText = (parent, text = TEXT) =>
  [
    `${parent} > :matches(${text})`,
    `${parent} > :matches(ConditionalExpression, LogicalExpression) > :matches(${text})`,
    `${parent} > :matches(ConditionalExpression, LogicalExpression) > :matches(ConditionalExpression, LogicalExpression) > :matches(${text})`,
    `${parent} > :matches(ArrayExpression, SpreadElement) > :matches(${text})`,
    `${parent} > SpreadElement > :matches(ConditionalExpression, LogicalExpression) > ArrayExpression > :matches(${text})`,
  ].join(', ');
const UNLOCALISED = 'User-visible text goes through vscode.l10n.t(...) (docs/architecture.md, Localisation); user content and ids are passed as {0} arguments.';
const SHOWN_PROPERTY = '/^(label|description|detail|placeHolder|placeholder|prompt|title|tooltip|text|message|invocationMessage|buttonLabel|openLabel|saveLabel|validationMessage)$/';
export const LOCALISATION_SELECTORS = [
  `CallExpression[callee.property.name=/^show(Information|Warning|Error)Message$/]`,
  `CallExpression[callee.type='ConditionalExpression'][callee.consequent.property.name=/^show(Information|Warning|Error)Message$/]`,
  `Property[key.name=${SHOWN_PROPERTY}]`,
  `AssignmentExpression[left.property.name=${SHOWN_PROPERTY}]`,
  `NewExpression[callee.property.name=/^(TreeItem|MarkdownString|ChatResponseMarkdownPart|ChatResponseProgressPart)$/]`,
  `CallExpression[callee.property.name=/^(markdown|progress|warning|appendMarkdown|appendText|setStatusBarMessage)$/]`,
].map((parent) => ({ selector: childText(parent), message: UNLOCALISED }));

/**
 * The vscode-free cores whose texts reach the editor (issue 26): the service client's errors
 * (a notification, a chat error, Check Connection's report) and the sync engine's. They
 * translate through `l10n.t` of `@vscode/l10n` (the bundle activation hands over; English in
 * the CLI and the MCP server); likewise the upload engine's (a replacement's outcome is a
 * notification). Lint refuses a bare literal or template with words as an
 * error's message (`new …Error('…')`), as the `what` of a call (which every message of that
 * call names), as a request refusal (`refuse(param, '…')`), a bad-shape message or a
 * manifest's `reason`. The one exception is src/api/chatParameterLimits.ts: the webview
 * bundles it, so it imports nothing and returns refusal keys that each front end words.
 * test/architecture/l10nLint.test.ts proves each fires.
 */
/** A literal with two words in a row ("not found"), not an id or a key ('volume', 'removed'); a template with any word. */
const PHRASE = String.raw`/[A-Za-z]{2,} +[A-Za-z]/`;
const CORE_TEXT = `Literal[value=${PHRASE}], TemplateLiteral:has(TemplateElement[value.raw=${WORDS}])`;
export const CORE_LOCALISED_FILES = [
  'src/api/**',
  'src/sync/core/**',
  'src/upload/core/**',
  'src/common/core/folderExpansion.ts',
  'src/common/core/privateFiles.ts',
  'src/common/core/readableFiles.ts',
];
const CORE_UNLOCALISED = 'Text the editor shows goes through l10n.t(...) of @vscode/l10n (docs/architecture.md, Localisation); user content and ids are passed as {0} arguments.';
export const CORE_LOCALISATION_SELECTORS = [
  `NewExpression[callee.name=/Error$/]`,
  `Property[key.name=/^(what|reason|message)$/]`,
  `VariableDeclarator[id.name=/^(what|message|why)$/]`,
  `CallExpression[callee.name=/^(refuse|badShape)$/]`,
].map((parent) => ({ selector: childText(parent, CORE_TEXT), message: CORE_UNLOCALISED }));

const zones = [
  {
    target: './src/api',
    from: './src',
    except: ['./api'],
    message: 'src/api is the service client: it imports nothing else of the extension.',
  },
  {
    target: './src/common',
    from: './src',
    except: ['./api', './common'],
    message: 'src/common is shared by every feature, so it imports no feature.',
  },
  {
    target: './src/common/core',
    from: './src/common/vscode',
    message: 'src/common/core is vscode-free: it may not import the VS Code adapters of src/common/vscode.',
  },
  ...FEATURES.map((feature) => ({
    target: `./src/${feature}/core`,
    from: './src',
    except: ['./api', './common/core', `./${feature}/core`, ...publicCoresOf(feature)],
    message: `src/${feature}/core is vscode-free and front-end-free: it imports src/api, src/common/core, its own core and other features' public cores (PUBLIC_CORE) only.`,
  })),
  {
    // The webview panel's host side: the engine plus the protocol, still without vscode.
    target: './src/chat/panel',
    from: './src',
    except: ['./api', './common/core', './chat/core', './chat/panel', './chat/protocol.ts'],
    message: 'src/chat/panel maps the chat engine to the webview protocol: it imports src/api, src/common/core, chat/core, chat/panel and chat/protocol.ts only.',
  },
  ...FEATURES.map((feature) => ({
    target: ['./src/extension.ts', ...FEATURES.filter((other) => other !== feature).map((other) => `./src/${other}`)],
    from: `./src/${feature}`,
    except: [`./${feature}Feature.ts`, ...(PUBLIC_CORE[feature] ?? [])],
    message: `Use the public surface of ${feature} (src/${feature}/${feature}Feature.ts, or its PUBLIC_CORE entry points), not its internals; shared vscode-free logic belongs in src/common/core.`,
  })),
  {
    target: './src/webview',
    from: './src',
    except: ['./webview', './chat/protocol.ts', './api/chatParameterLimits.ts', `./${SHARED_WORDING.slice('src/'.length)}`],
    message: `The webview is its own bundle: from the host it imports only src/chat/protocol.ts, src/api/chatParameterLimits.ts and ${SHARED_WORDING}.`,
  },
  {
    target: `./${SHARED_WORDING}`,
    from: './src',
    except: ['./api/chatParameterLimits.ts'],
    message: `${SHARED_WORDING} is bundled by the webview too: of src/ it imports only src/api/chatParameterLimits.ts.`,
  },
  {
    target: './src/chat/protocol.ts',
    from: './src',
    except: ['./chat/core/conversationTypes.ts'],
    message: 'The host/webview protocol imports only the types of src/chat/core/conversationTypes.ts, so both bundles can include it.',
  },
  {
    target: './src/chat/core/conversationTypes.ts',
    from: './src',
    except: ['./api/chatParameterLimits.ts'],
    message: 'The conversation types are bundled by the webview too: they import only src/api/chatParameterLimits.ts.',
  },
  {
    target: './src/cli',
    from: './src',
    except: ['./api', './common/core', './cli', './mcp', ...FEATURES.map((feature) => `./${feature}/core`)],
    message: 'src/cli runs without VS Code: it imports src/api, the vscode-free cores and the MCP server only.',
  },
  {
    // The MCP server (`ksm mcp`): a thin front end over the cores, like the CLI that starts it.
    target: './src/mcp',
    from: './src',
    except: ['./api', './common/core', './mcp', ...FEATURES.map((feature) => `./${feature}/core`)],
    message: 'src/mcp (the MCP server) runs without VS Code: it imports src/api and the vscode-free cores only.',
  },
];

/** The top-level folders of src/ (`names`) that no zone's target covers; lint refuses to run while there is one. */
export function foldersWithoutZone(names) {
  const targets = zones.flatMap((zone) => (Array.isArray(zone.target) ? zone.target : [zone.target]));
  return names.filter((name) => !targets.some((target) => target === `./src/${name}` || target.startsWith(`./src/${name}/`)));
}

const srcFolders = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const uncovered = foldersWithoutZone(srcFolders);
if (uncovered.length) {
  throw new Error(
    `src/${uncovered.join(', src/')} has no lint zone: add it to FEATURES (a feature with core/ and vscode/) or give it a zone in eslint.config.mjs saying what it may import (docs/architecture.md).`,
  );
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.vscode-test/**', 'test-results/**'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    plugins: { import: importPlugin },
    settings: {
      // Resolves `./x` to `./x.ts`, so the zones see the file an import really loads.
      'import/resolver': { node: { extensions: ['.ts', '.js', '.mjs'] } },
      // no-cycle parses what an import resolves to; without these it read no .ts file and found nothing.
      'import/extensions': ['.ts', '.js', '.mjs'],
      'import/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import/no-restricted-paths': ['error', { zones }],
      // Files that import each other load half-made: each module a reader can follow, bottom up (type-only imports aside).
      // disableScc: the faster path crashes on a file not yet on disk (the layer tests lint such probes).
      'import/no-cycle': ['error', { disableScc: true }],
    },
  },
  {
    files: VSCODE_FREE,
    rules: { 'no-restricted-imports': ['error', { paths: [noVscode] }] },
  },
  {
    files: LOCALISED_FILES,
    rules: { 'no-restricted-syntax': ['error', ...LOCALISATION_SELECTORS] },
  },
  {
    files: CORE_LOCALISED_FILES,
    ignores: IMPORT_FREE,
    rules: { 'no-restricted-syntax': ['error', ...CORE_LOCALISATION_SELECTORS] },
  },
  {
    files: IMPORT_FREE,
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ImportDeclaration', message: 'The webview bundles this file too: it imports nothing.' },
        { selector: 'ExportAllDeclaration, ExportNamedDeclaration[source]', message: 'The webview bundles this file too: it re-exports nothing.' },
        { selector: 'ImportExpression', message: 'The webview bundles this file too: it imports nothing.' },
      ],
    },
  },
  {
    files: TYPE_ONLY_IMPORTS,
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "ImportDeclaration[importKind!='type']", message: 'The webview bundles this file too: it imports types only (`import type`).' },
        { selector: 'ExportAllDeclaration', message: 'The webview bundles this file too: it re-exports nothing.' },
        { selector: "ExportNamedDeclaration[source][exportKind!='type']", message: 'The webview bundles this file too: it re-exports types only.' },
        { selector: 'ImportExpression', message: 'The webview bundles this file too: it imports nothing.' },
      ],
    },
  },
  {
    files: [SHARED_WORDING],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `ImportDeclaration[source.value!=${sharedWordingImport}]`,
          message: `The webview bundles this file too: it imports only ${SHARED_WORDING_IMPORTS.join(' and ')}.`,
        },
        { selector: 'ExportAllDeclaration, ExportNamedDeclaration[source]', message: 'The webview bundles this file too: it re-exports nothing.' },
        { selector: 'ImportExpression', message: 'The webview bundles this file too: it imports nothing at run time beyond its static imports.' },
      ],
    },
  },
  {
    // The webview and the files it shares with the host run in the browser: no vscode, no Node built-ins.
    files: ['src/webview/**', ...IMPORT_FREE, ...TYPE_ONLY_IMPORTS, SHARED_WORDING],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noVscode],
          patterns: [{ group: ['node:*', ...builtinModules], message: 'The webview runs in a browser: no Node modules.' }],
        },
      ],
    },
  },
);
