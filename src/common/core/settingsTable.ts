// Every `ksm.*` setting, declared once: key, type, default, scope, whether it routes, sends
// or deletes data (then it is in package.json's `capabilities.untrustedWorkspaces
// .restrictedConfigurations` and a workspace cannot set it in Restricted Mode), why it has
// its scope, and how a raw value is read (clamped, trimmed, de-duplicated). package.json's
// `contributes.configuration` repeats the declarative part for VS Code's Settings editor;
// test/common/settingsTable.test.ts fails when the two disagree (a test rather than a
// generated package.json: the manifest stays hand-edited, reviewed text, descriptions and
// order included, and the build does not write to a tracked file). The one reader over
// VS Code's configuration is src/common/vscode/settings.ts. No `vscode` import.

import { OUTPUT_FORMATS, type OutputFormat } from '../../api/chatParameterLimits';
import { withoutTrailingSlashes } from '../../api/baseUrl';
import { DEFAULT_AGENT_ID } from '../../api/types';

/** VS Code's configuration scopes; a property without `scope` in package.json is `window`. */
export type SettingScope = 'application' | 'machine' | 'machine-overridable' | 'window' | 'resource';

export interface SettingSpec<T> {
  /** Full key, `ksm.…`. */
  readonly key: string;
  readonly type: 'string' | 'boolean' | 'integer' | 'number' | 'array';
  /** Item type of an array setting (package.json `items.type`). */
  readonly items?: 'string' | 'object';
  readonly default: T;
  readonly scope: SettingScope;
  readonly enum?: readonly unknown[];
  readonly minimum?: number;
  readonly maximum?: number;
  /**
   * Routes, sends or deletes data (where files go, which model or agent reads them, what
   * is excluded or logged): listed in `restrictedConfigurations`, so VS Code ignores a
   * workspace's value in Restricted Mode; the reader ignores it there too.
   */
  readonly dataRouting: boolean;
  /** Why this scope (and restriction): the review issue 22 asked for, kept with the setting. */
  readonly reason: string;
  /** Raw configuration value (anything a settings file may hold) → the value the code uses. */
  readonly read: (raw: unknown) => T;
}

/** A sync pairing of `ksm.sync.folders` as the code uses it. */
export interface PairingSetting {
  /** As stored: relative to a workspace folder (`/`-separated), `.` for the whole folder. */
  folder: string;
  volume: string;
  deleteRemoved: boolean;
  watch: boolean;
}

function spec<T>(s: SettingSpec<T>): SettingSpec<T> {
  return s;
}

export const SETTINGS = {
  baseUrl: spec({
    key: 'ksm.baseUrl',
    type: 'string',
    default: '',
    scope: 'application',
    dataRouting: true,
    reason:
      'Where the API key and every request go: only the user\u2019s own settings may set it (application), so a cloned repository cannot redirect the key. Not `machine`: a machine setting vanished in remote windows after any workspace settings write.',
    read: (raw) => withoutTrailingSlashes(trimmedString(raw)),
  }),
  userId: spec({
    key: 'ksm.userId',
    type: 'string',
    default: '',
    scope: 'application',
    dataRouting: true,
    reason: 'Names the personal volume `{userId}` that uploads and tools default to: the user\u2019s identity, never a repository\u2019s.',
    read: (raw) => trimmedString(raw),
  }),
  volumesList: spec({
    key: 'ksm.volumes.list',
    type: 'array',
    items: 'string',
    default: [] as string[],
    scope: 'resource',
    dataRouting: true,
    reason:
      'A team shares its volume list through workspace settings (resource), but the list is what tools may upload to and search: restricted, so an untrusted repository cannot add a volume for a model to upload into.',
    read: (raw) => uniqueStrings(raw),
  }),
  volumesPageSize: spec({
    key: 'ksm.volumes.pageSize',
    type: 'integer',
    default: 50,
    scope: 'window',
    minimum: 1,
    maximum: 1000,
    dataRouting: false,
    reason: 'A display preference; harmless from a workspace.',
    read: (raw) => clampInt(raw, 50, 1, 1000),
  }),
  chatDefaultModel: spec({
    key: 'ksm.chat.defaultModel',
    type: 'string',
    default: '',
    scope: 'window',
    dataRouting: true,
    reason: 'A team may agree on a model per project (window), but the model reads every question and attached code: restricted.',
    read: (raw) => trimmedString(raw),
  }),
  chatModels: spec({
    key: 'ksm.chat.models',
    type: 'array',
    items: 'string',
    default: [] as string[],
    scope: 'window',
    dataRouting: true,
    reason: 'The first model is the default when none is set, so it chooses who reads questions as well: restricted like ksm.chat.defaultModel.',
    read: (raw) => uniqueStrings(raw),
  }),
  chatReasoningModels: spec({
    key: 'ksm.chat.reasoningModels',
    type: 'array',
    items: 'string',
    default: [] as string[],
    scope: 'window',
    dataRouting: false,
    reason: 'Only shows or hides the reasoning controls; sends nothing anywhere.',
    read: (raw) => uniqueStrings(raw),
  }),
  chatOutputFormat: spec({
    key: 'ksm.chat.outputFormat',
    type: 'string',
    default: 'chat' as OutputFormat,
    scope: 'window',
    enum: OUTPUT_FORMATS,
    dataRouting: false,
    reason: 'Only the shape the same service answers in (output_parser, D16); a project may prefer the format its service speaks. Sends nothing elsewhere.',
    read: (raw): OutputFormat => (raw === 'responses' ? 'responses' : 'chat'),
  }),
  vscodeChatShowModels: spec({
    key: 'ksm.vscodeChat.showModels',
    type: 'boolean',
    default: true,
    scope: 'application',
    dataRouting: false,
    reason: 'Whether VS Code\u2019s own model picker lists KSM models is a per-user preference (application), not a project\u2019s.',
    read: (raw) => raw !== false,
  }),
  agentId: spec({
    key: 'ksm.agent.id',
    type: 'string',
    default: DEFAULT_AGENT_ID,
    scope: 'window',
    dataRouting: true,
    reason: 'The agent reads the question and searches the volumes: a project may pick one (window), an untrusted one may not (restricted).',
    read: (raw) => trimmedString(raw) || DEFAULT_AGENT_ID,
  }),
  agentModel: spec({
    key: 'ksm.agent.model',
    type: 'string',
    default: '',
    scope: 'window',
    dataRouting: true,
    reason: 'The model the agent answers with reads the retrieved passages: restricted like ksm.agent.id.',
    read: (raw) => trimmedString(raw),
  }),
  uploadEmbeddingModel: spec({
    key: 'ksm.upload.embeddingModel',
    type: 'string',
    default: '',
    scope: 'window',
    dataRouting: true,
    reason: 'The embedding model receives every uploaded file\u2019s text: a project may share one (window), an untrusted one may not (restricted).',
    read: (raw) => trimmedString(raw),
  }),
  uploadDoChunking: spec({
    key: 'ksm.upload.doChunking',
    type: 'integer',
    default: 1 as 0 | 1 | 2,
    scope: 'window',
    enum: [0, 1, 2],
    dataRouting: false,
    reason: 'How the service processes an upload the user makes anyway; a project may share it.',
    read: (raw): 0 | 1 | 2 => (raw === 0 || raw === 2 ? raw : 1),
  }),
  uploadAskProcessing: spec({
    key: 'ksm.upload.askProcessing',
    type: 'boolean',
    default: false,
    scope: 'application',
    dataRouting: false,
    reason: 'Whether to be asked at every upload is a personal habit (application).',
    read: (raw) => raw === true,
  }),
  uploadExclude: spec({
    key: 'ksm.upload.exclude',
    type: 'array',
    items: 'string',
    default: ['**/node_modules/**', '**/.git/**', '**/*.vsix'],
    scope: 'resource',
    dataRouting: true,
    reason:
      'Globs relative to a workspace folder, like files.exclude (resource). Emptying it would send what it kept out: restricted. The private-file rules (src/common/core/privateFiles.ts) apply whatever it says.',
    read: (raw) => uniqueStrings(raw),
  }),
  uploadMaxFileSizeMB: spec({
    key: 'ksm.upload.maxFileSizeMB',
    type: 'number',
    default: 100,
    scope: 'window',
    minimum: 0,
    dataRouting: false,
    reason: 'A size limit on what the user chose to send; 0 (no limit) from a workspace sends nothing the user did not pick.',
    read: (raw) => Math.max(0, finiteNumber(raw, 100)),
  }),
  requestTimeoutSeconds: spec({
    key: 'ksm.request.timeoutSeconds',
    type: 'number',
    default: 60,
    scope: 'application',
    minimum: 1,
    dataRouting: false,
    reason: 'Depends on the user\u2019s network and service, not on a project (application, as ksm.baseUrl).',
    read: (raw) => Math.max(1, finiteNumber(raw, 60)),
  }),
  networkCaBundle: spec({
    key: 'ksm.network.caBundle',
    type: 'string',
    default: '',
    scope: 'machine',
    dataRouting: true,
    reason: 'A path on this machine (machine): which certificates are trusted decides who can read the traffic, so a workspace never sets it.',
    read: (raw) => trimmedString(raw),
  }),
  debugLogRequests: spec({
    key: 'ksm.debug.logRequests',
    type: 'boolean',
    default: false,
    scope: 'application',
    dataRouting: true,
    reason: 'Writes every request (questions and file names) to the log: the user\u2019s own debugging switch (application) and restricted.',
    read: (raw) => raw === true,
  }),
  syncFolders: spec({
    key: 'ksm.sync.folders',
    type: 'array',
    items: 'object',
    default: [] as PairingSetting[],
    scope: 'resource',
    dataRouting: true,
    reason:
      'Teams share pairings in workspace settings (resource), but a pairing sends a folder to a volume, may delete and may watch: restricted, and a pairing from workspace settings waits for the user\u2019s approval on this machine even when trusted.',
    read: (raw) => pairings(raw),
  }),
  syncDeleteGuardPercent: spec({
    key: 'ksm.sync.deleteGuardPercent',
    type: 'integer',
    default: 20,
    scope: 'resource',
    minimum: 0,
    maximum: 100,
    dataRouting: true,
    reason: 'Guards the user against emptying a volume; 100 from a repository switches the guard off: restricted.',
    read: (raw) => clampInt(raw, 20, 0, 100),
  }),
  syncWatchDelayMs: spec({
    key: 'ksm.sync.watchDelayMs',
    type: 'integer',
    default: 1500,
    scope: 'resource',
    minimum: 100,
    maximum: 60000,
    dataRouting: false,
    reason: 'Only when a watched sync runs, never what it sends.',
    read: (raw) => clampInt(raw, 1500, 100, 60000),
  }),
} as const;

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<N extends SettingName> = ReturnType<(typeof SETTINGS)[N]['read']>;

/** Every setting's spec, in declaration order. */
export const ALL_SETTINGS: ReadonlyArray<SettingSpec<unknown>> = Object.values(SETTINGS);

/** The keys package.json must list in `restrictedConfigurations`. */
export function restrictedSettingKeys(): string[] {
  return ALL_SETTINGS.filter((s) => s.dataRouting).map((s) => s.key);
}

/** The spec of a full key (`ksm.…`), or undefined. */
export function settingByKey(key: string): SettingSpec<unknown> | undefined {
  return ALL_SETTINGS.find((s) => s.key === key);
}

// ---- readers' helpers ----

function trimmedString(raw: unknown): string {
  return typeof raw === 'string' ? raw.trim() : '';
}

function uniqueStrings(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  return [
    ...new Set(
      raw
        .filter((v): v is string => typeof v === 'string')
        .map((v) => v.trim())
        .filter(Boolean),
    ),
  ];
}

function finiteNumber(raw: unknown, fallback: number): number {
  return typeof raw === 'number' && Number.isFinite(raw) ? raw : fallback;
}

function clampInt(raw: unknown, fallback: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(finiteNumber(raw, fallback))));
}

/**
 * A stored pairing list (`ksm.sync.folders` in a settings file, or the local pairings in
 * workspaceState) with the pairing of (folder, volume) taken out and, when given, `put` in
 * its place (fields of the stored entry this version does not know are kept) or at the end.
 * Every other entry stays exactly as stored: fields a later version added, and entries this
 * version cannot read, are never dropped by a save of another pairing.
 */
export function storedPairingsWith(raw: unknown, pairing: Pick<PairingSetting, 'folder' | 'volume'>, put?: PairingSetting): unknown[] {
  const list: unknown[] = Array.isArray(raw) ? raw : [];
  const isIt = (entry: unknown) => pairings([entry]).some((p) => p.folder === pairing.folder && p.volume === pairing.volume);
  const kept = list.filter((entry) => !isIt(entry));
  if (!put) return kept;
  const stored = list.find(isIt) as Record<string, unknown> | undefined;
  return [...kept, { ...stored, ...put }];
}

function pairings(raw: unknown): PairingSetting[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry) => {
    if (typeof entry !== 'object' || entry === null) return [];
    const e = entry as Record<string, unknown>;
    if (typeof e.folder !== 'string' || !e.folder.trim() || typeof e.volume !== 'string' || !e.volume.trim()) return [];
    return [{ folder: e.folder.trim(), volume: e.volume.trim(), deleteRemoved: e.deleteRemoved === true, watch: e.watch === true }];
  });
}
