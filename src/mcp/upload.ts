// The MCP `upload` tool, offered only when `ksm mcp --allow-upload <folder>` was given:
// files inside that one folder, resolved and refused exactly as VS Code's upload tool does
// (resolveUploadPaths over src/common/core/privateFiles.ts: `.git/`, credential names,
// private keys by content, `.gitignore`d files, symlinks leading out), then the same upload call. An MCP
// client has no confirmation dialog of ours, so the folder is the fence: nothing outside it
// and nothing private inside it is ever read.
import type { DoChunking, FileInfo } from '../api/types';
import { checkUploadInput, resolveUploadPaths, uploadToVolume } from '../nativeChat/core/volumeTools';
import { RetrievalError, type RetrievalScope } from '../volumes/core/retrieval';

export interface FolderUploadOptions {
  /** The only folder files may come from (its real path is checked at each call). */
  folder: string;
  embedding: string;
  doChunking: DoChunking;
  maxFileBytes: number;
}

export interface FolderUploadResult {
  volume: string;
  uploaded: FileInfo[];
  /** Asked for and not sent, with the reason (private, outside the folder, too large, missing). */
  refused: Array<{ path: string; reason: string }>;
  /** Sent and refused by the service. */
  failed: Array<{ name: string; reason: string }>;
}

export async function uploadFromFolder(input: unknown, options: FolderUploadOptions, scope: RetrievalScope): Promise<FolderUploadResult> {
  const checked = checkUploadInput(input, scope);
  if (!checked.ok) throw new RetrievalError(checked.message);
  if (!options.embedding) throw new RetrievalError('Uploading needs an embedding model: set KSM_EMBEDDING_MODEL where `ksm mcp` starts.');
  // The folder is the workspace: the same resolution and refusals as VS Code's upload tool.
  const rules = { workspaceRoots: [options.folder], filesExclude: [], uploadExclude: [] };
  const planned = await resolveUploadPaths(checked.value, rules, options.maxFileBytes);
  if (!planned.ok) throw new RetrievalError(inFolder(planned.message).replace(/\n+/g, ' '));
  const refused = planned.value.refused.map((r) => ({ path: r.given, reason: inFolder(r.reason) }));
  const { uploaded, failed } = await uploadToVolume(planned.value, { embedding: options.embedding, doChunking: options.doChunking }, scope);
  return { volume: checked.value.volume, uploaded, refused, failed };
}

/** The refusals speak of "the workspace"; here the folder given with --allow-upload is it. */
function inFolder(text: string): string {
  return text.replace(/the workspace folders?|the workspace/g, 'the upload folder').replace(/ \(ksm\.upload\.maxFileSizeMB\)/g, '');
}
