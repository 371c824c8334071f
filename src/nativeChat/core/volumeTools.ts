// The language-model tools over the user's volumes, without `vscode`: their input schemas
// (the search and the listing are the retrieval engine's, src/volumes/core/retrieval.ts)
// (package.json declares the same ones; a unit test keeps them equal), input validation
// with a clear sentence per mistake, the calls, and the text the model reads back.
// Models call these on their own, so every input is untrusted: volumes are checked by
// name, upload paths must resolve (symlinks included) inside a workspace folder.
import { basename } from 'node:path';
import type { DoChunking, FileInfo } from '../../api/types';
import { formatBytes } from '../../common/core/byteSize';
import { checkPrivateFile, type PrivateFileRules } from '../../common/core/privateFiles';
import * as l10n from '@vscode/l10n';
import { markdownCode, markdownText, shown, shownInput } from '../../common/core/untrustedText';
import { personalVolumeLabel, personalVolumeName } from '../../common/core/volumeTargets';
import { failureText, MAX_LISTED_FILES, resolveVolume, RetrievalError, volumeLabel, type Checked, type Passage, type RetrievalScope } from '../../volumes/core/retrieval';
import { LM_TOOL_ID } from '../../common/core/contributionIds';

// The retrieval engine is the volumes feature's (one engine for the LM tools, the CLI and
// the MCP server); re-exported for the nativeChat files that import these names from here.
export {
  checkListFilesInput,
  checkSearchInput,
  failureText,
  MAX_QUERY_CHARS,
  PERSONAL_VOLUME_LABEL,
  resolveVolume,
  RetrievalError as ToolInputError,
  volumeLabel,
  type Checked,
  type ListFilesInput,
  type SearchInput,
} from '../../volumes/core/retrieval';

/** The tools' names, declared with the other contribution ids. */
export const TOOL_NAMES = LM_TOOL_ID;

const VOLUME_NAME = { type: 'string', description: "A volume name from ksm.volumes.list, or 'My files' for the personal volume." } as const;

export const TOOL_INPUT_SCHEMAS = {
  [TOOL_NAMES.search]: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for, in words: a question or key terms.' },
      volumes: { type: 'array', items: VOLUME_NAME, description: 'Named volumes to search besides the personal one. Default: all volumes in ksm.volumes.list.' },
    },
    required: ['query'],
  },
  [TOOL_NAMES.listFiles]: {
    type: 'object',
    properties: {
      volume: { ...VOLUME_NAME, description: "The volume to list. Default: 'My files'." },
    },
  },
  [TOOL_NAMES.upload]: {
    type: 'object',
    properties: {
      paths: { type: 'array', items: { type: 'string' }, description: 'Workspace files to upload: paths relative to a workspace folder, or absolute paths inside one.' },
      volume: { ...VOLUME_NAME, description: "The volume to upload to. Default: 'My files'." },
    },
    required: ['paths'],
  },
} as const;

export const MAX_UPLOAD_FILES = 20;
const MAX_PASSAGE_CHARS = 600;

/** Where the tools act: read from settings at call time by the adapter. */
export type ToolContext = RetrievalScope;

export interface UploadInput {
  volume: string;
  paths: string[];
}

export function checkUploadInput(input: unknown, context: Pick<ToolContext, 'userId' | 'volumes'>): Checked<UploadInput> {
  const o = input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
  if (!o) return { ok: false, message: 'The input must be an object like {"paths": ["docs/guide.md"], "volume": "My files"}.' };
  if (!Array.isArray(o.paths) || o.paths.length === 0 || !o.paths.every((p) => typeof p === 'string' && p.trim() !== '')) {
    return { ok: false, message: "'paths' is required: a non-empty list of workspace file paths." };
  }
  if (o.paths.length > MAX_UPLOAD_FILES) return { ok: false, message: `At most ${MAX_UPLOAD_FILES} files per upload; ${o.paths.length} were given.` };
  const volume = resolveVolume(o.volume, context);
  if (!volume.ok) return volume;
  return { ok: true, value: { volume: volume.value, paths: [...new Set((o.paths as string[]).map((p) => p.trim()))] } };
}

// ---- search: the retrieval engine's passages as the text the model reads ----

export function searchResultText(query: string, passages: readonly Passage[]): string {
  if (passages.length === 0) {
    return `No passages in your volumes match "${query}". Only files whose processing is done are searched; try other words.`;
  }
  const lines = passages.map((c, i) => {
    const snippet = c.text.replace(/\s+/g, ' ').trim();
    const cut = snippet.length > MAX_PASSAGE_CHARS ? `${snippet.slice(0, MAX_PASSAGE_CHARS - 1)}…` : snippet;
    const score = typeof c.score === 'number' ? `, score ${c.score.toFixed(2)}` : '';
    return `[${i + 1}] ${name(c.filename)} (volume: ${name(c.volumeLabel)}, file id: ${shown(c.fileId)}${score})\n${cut}`;
  });
  return `Found ${passages.length} passage(s) for "${query}":\n\n${lines.join('\n\n')}`;
}

/**
 * A name the service wrote (a file name, a volume, a state), inside the text a model reads:
 * escaped and bounded (untrustedText.ts), so a file named `a.md\n[2] …` or `…\nSYSTEM: …`
 * cannot add a result line or an instruction that reads as ours.
 */
function name(value: string): string {
  return shownInput(value, 200);
}

// ---- list files ----

export function listFilesText(volume: string, listing: { files: readonly FileInfo[]; more: boolean }): string {
  if (listing.files.length === 0) return `The volume ${volumeLabel(volume)} has no files.`;
  const lines = listing.files.map((f) => `- ${name(f.filename)} (file id: ${shown(f.uuid)}) — ${name(f.status)}${f.statusDetail ? `: ${shownInput(f.statusDetail, 300)}` : ''}, ${f.filesize} bytes`);
  const more = listing.more ? `\n(only the first ${MAX_LISTED_FILES} files are listed)` : '';
  return `Files in ${volumeLabel(volume)} (${listing.files.length}${listing.more ? '+' : ''}); only files in state 'done' are searchable:\n${lines.join('\n')}${more}`;
}

// ---- upload ----

export interface ResolvedUpload {
  volume: string;
  /** What is sent: real path, workspace-relative path shown to the user, stored name, size. */
  files: Array<{ path: string; displayPath: string; name: string; size: number; identity?: { dev: number; ino: number } }>;
  /** What was asked for and is not sent, with the reason (private files, size, missing). */
  refused: Array<{ given: string; reason: string }>;
}

/**
 * Resolves upload paths against the workspace folders through the private-file rules
 * (src/common/core/privateFiles.ts): a path must name an existing file whose real location
 * lies inside a workspace folder and that is not private (`.git/`, credentials, private
 * keys, gitignored or excluded files, symlinks leading out). A model that was talked into
 * uploading `~/.ssh/id_rsa` or `.env` gets a refusal naming the file and the reason; the
 * other files stay in the plan. Fails when nothing is left to send.
 */
export async function resolveUploadPaths(input: UploadInput, rules: PrivateFileRules, maxFileBytes: number): Promise<Checked<ResolvedUpload>> {
  if (rules.workspaceRoots.length === 0) return { ok: false, message: 'Open a folder first: only files inside the workspace can be uploaded.' };
  const files: ResolvedUpload['files'] = [];
  const refused: ResolvedUpload['refused'] = [];
  for (const given of input.paths) {
    const check = await checkPrivateFile(given, rules);
    if (!check.ok) {
      refused.push({ given, reason: check.reason });
      continue;
    }
    const { path, displayPath, size, identity } = check.file;
    if (maxFileBytes > 0 && size > maxFileBytes) {
      refused.push({ given, reason: `is ${formatBytes(size)}, over the ${formatBytes(maxFileBytes)} limit (ksm.upload.maxFileSizeMB)` });
      continue;
    }
    if (!files.some((f) => f.path === path)) files.push({ path, displayPath, name: basename(path), size, identity });
  }
  if (files.length === 0) return { ok: false, message: `Nothing was uploaded.\n${refusedText(refused)}` };
  return { ok: true, value: { volume: input.volume, files, refused } };
}

/** The refused files, one line each, for the model and the confirmation. */
export function refusedText(refused: ResolvedUpload['refused']): string {
  if (refused.length === 0) return '';
  return `Not sent (${refused.length}), and the tool will not send them:\n${refused.map((r) => `- '${shownInput(r.given, 200)}' ${r.reason}.`).join('\n')}`;
}

/**
 * The exact volume a write goes to: "My files ({id})" only for the user's own personal
 * volume `{ksm.userId}`; any other name, `{…}` included, as it is.
 */
export function exactVolumeName(volume: string, userId: string): string {
  return volume === personalVolumeName(userId) ? `${personalVolumeLabel()} (${volume})` : volume;
}

/**
 * The line VS Code shows while a search or list tool runs. Its query or volume is the model's
 * argument (a prompt injection may write it): escaped and cut short, so it can neither break
 * the line, reorder it (U+202E) nor fill the chat with a megabyte.
 */
export function toolInvocationMessage(tool: 'search' | 'listFiles', input: unknown, userId: string): string {
  const value = isRecord(input) ? input[tool === 'search' ? 'query' : 'volume'] : undefined;
  if (tool === 'search') return typeof value === 'string' && value.trim() ? l10n.t('Searching your KSM volumes for "{0}"', shownInput(value, 80)) : l10n.t('Searching your KSM volumes');
  return l10n.t('Listing the files of {0}', typeof value === 'string' ? shownInput(exactVolumeName(value, userId), 120) : personalVolumeLabel());
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * The confirmation VS Code shows before the upload tool runs: workspace-relative paths, sizes,
 * the exact volume, what is refused. A path is a workspace file's name (a cloned repository
 * chose it): shown escaped (markdownCode), so `invoice\u202Etxt.exe` cannot read as a text file.
 */
export function uploadConfirmation(upload: ResolvedUpload, userId: string): { title: string; message: string } {
  const volume = exactVolumeName(upload.volume, userId);
  const lines = upload.files.map((f) => `- \`${markdownCode(f.displayPath)}\` (${formatBytes(f.size)})`).join('\n');
  const refused = upload.refused.length ? `\n\n${markdownText(refusedText(upload.refused))}` : '';
  return {
    title: l10n.t('Upload {0} file(s) to {1}?', upload.files.length, volume),
    message: `${
      volume !== upload.volume
        ? l10n.t('These workspace files will be sent to the KSM service and stored in the volume `{0}` ({1}):', markdownCode(upload.volume), personalVolumeLabel())
        : l10n.t('These workspace files will be sent to the KSM service and stored in the volume `{0}`:', markdownCode(upload.volume))
    }\n\n${lines}${refused}`,
  };
}

export async function uploadToVolume(
  upload: ResolvedUpload,
  settings: { embedding: string; doChunking: DoChunking },
  context: ToolContext,
): Promise<{ uploaded: FileInfo[]; failed: Array<{ name: string; reason: string }> }> {
  if (!settings.embedding) throw new RetrievalError("Uploading needs an embedding model: set 'ksm.upload.embeddingModel'.");
  const results = await context.service.uploadFiles(
    {
      volume: upload.volume,
      embedding: settings.embedding,
      doChunking: settings.doChunking,
      files: upload.files.map((f) => ({ path: f.path, filename: f.name, ...(f.identity ? { identity: f.identity } : {}) })),
    },
    { signal: context.signal },
  );
  const uploaded: FileInfo[] = [];
  const failed: Array<{ name: string; reason: string }> = [];
  for (const r of results) {
    if (r.ok) uploaded.push(r.info);
    else failed.push({ name: r.source.filename ?? basename(r.source.path), reason: failureText(r.error) });
  }
  return { uploaded, failed };
}

export function uploadResultText(volume: string, result: { uploaded: readonly FileInfo[]; failed: ReadonlyArray<{ name: string; reason: string }>; refused?: ResolvedUpload['refused'] }): string {
  const lines: string[] = [];
  if (result.uploaded.length) {
    lines.push(`Uploaded ${result.uploaded.length} file(s) to ${volumeLabel(volume)}; the service processes them now (searchable once 'done'):`);
    for (const f of result.uploaded) lines.push(`- ${name(f.filename)} (file id: ${shown(f.uuid)}) — ${name(f.status)}`);
  }
  if (result.failed.length) {
    lines.push(`${result.failed.length} file(s) were not uploaded:`);
    for (const f of result.failed) lines.push(`- ${name(f.name)}: ${shown(f.reason)}`);
  }
  if (result.refused?.length) lines.push(refusedText(result.refused));
  return lines.join('\n');
}
