// Runs one of the volume tools from raw model input to the text the model reads back. Used
// by the VS Code adapter (lm.registerTool) and by tests alike; every failure, invalid input
// included, is a clear text result rather than an exception, so the model can correct
// itself. Only cancellation propagates (VS Code stops the tool call on its own).
import { isCancellation } from '../../api/errors';
import type { DoChunking } from '../../api/types';
import { checkListFilesInput, checkSearchInput, failureText, Retrieval } from '../../volumes/core/retrieval';
import {
  checkUploadInput,
  listFilesText,
  resolveUploadPaths,
  searchResultText,
  TOOL_NAMES,
  uploadResultText,
  uploadToVolume,
  type Checked,
  type ResolvedUpload,
  type ToolContext,
} from './volumeTools';

/** The extension host's one retrieval engine: it remembers what searches returned. */
const retrieval = new Retrieval();

export type VolumeToolName = (typeof TOOL_NAMES)[keyof typeof TOOL_NAMES];

export interface UploadEnvironment {
  workspaceRoots: readonly string[];
  /** `files.exclude` globs that are on; `ksm.upload.exclude`. The private-file rules apply besides. */
  filesExclude: readonly string[];
  uploadExclude: readonly string[];
  /** False in Restricted Mode: the upload tool refuses until the workspace is trusted. */
  trusted: boolean;
  /** The plans whose confirmation was shown: an upload runs only for one of them (fail closed). */
  confirmations: UploadConfirmations;
  maxFileBytes: number;
  embedding: string;
  doChunking: DoChunking;
  /** Told about every file that reached the service (the participant's /status reads it). */
  onUploaded?(volume: string, fileIds: string[]): void;
}

export interface ToolRunResult {
  ok: boolean;
  text: string;
}

export async function runVolumeTool(name: VolumeToolName, input: unknown, context: ToolContext, upload: UploadEnvironment): Promise<ToolRunResult> {
  try {
    switch (name) {
      case TOOL_NAMES.search: {
        const checked = checkSearchInput(input, context);
        if (!checked.ok) return refused(checked);
        return { ok: true, text: searchResultText(checked.value.query, await retrieval.search(checked.value, context)) };
      }
      case TOOL_NAMES.listFiles: {
        const checked = checkListFilesInput(input, context);
        if (!checked.ok) return refused(checked);
        return { ok: true, text: listFilesText(checked.value.volume, await retrieval.listFiles(checked.value, context)) };
      }
      case TOOL_NAMES.upload: {
        const checked = checkUploadInput(input, context);
        if (!checked.ok) return refused(checked);
        const planned = await planUpload(input, context, upload);
        if (!planned.ok) return { ok: false, text: `Not uploaded: ${planned.message}` };
        // The files are checked again now and must be exactly what the user confirmed.
        if (!upload.confirmations.take(input, planned.value)) {
          return { ok: false, text: 'Not uploaded: the upload was not confirmed by the user (no confirmation was shown for these files, or they changed since). Nothing was sent.' };
        }
        const result = await uploadToVolume(planned.value, upload, context);
        if (result.uploaded.length)
          upload.onUploaded?.(
            planned.value.volume,
            result.uploaded.map((f) => f.uuid),
          );
        return { ok: result.failed.length === 0 && planned.value.refused.length === 0, text: uploadResultText(planned.value.volume, { ...result, refused: planned.value.refused }) };
      }
      default:
        return { ok: false, text: `Unknown tool '${String(name)}'.` };
    }
  } catch (error) {
    if (isCancellation(error) || context.signal?.aborted) throw error;
    return { ok: false, text: failureText(error) };
  }
}

export const RESTRICTED_MODE_UPLOAD =
  'Uploading is off in Restricted Mode: this workspace is not trusted, so the KSM tools that write wait. Trust the workspace (Manage Workspace Trust) and ask again; searching and listing still work.';

/** Validates an upload's input and resolves its files through the private-file rules: what the confirmation shows is what runs. */
export async function planUpload(
  input: unknown,
  context: Pick<ToolContext, 'userId' | 'volumes'>,
  upload: Pick<UploadEnvironment, 'workspaceRoots' | 'maxFileBytes' | 'filesExclude' | 'uploadExclude' | 'trusted'>,
): Promise<Checked<ResolvedUpload>> {
  if (!upload.trusted) return { ok: false, message: RESTRICTED_MODE_UPLOAD };
  const checked = checkUploadInput(input, context);
  if (!checked.ok) return checked;
  return resolveUploadPaths(checked.value, { workspaceRoots: upload.workspaceRoots, filesExclude: upload.filesExclude, uploadExclude: upload.uploadExclude }, upload.maxFileBytes);
}

/**
 * Fail closed: VS Code calls `prepareInvocation` (which shows the confirmation) and then
 * `invoke` with the same input. The plan is recorded when its confirmation is shown, and
 * the upload runs only when a fresh plan at invoke time is the very same (same volume,
 * files, sizes); a missing, failed or different confirmation uploads nothing.
 */
export class UploadConfirmations {
  private readonly shown = new Map<string, string>();

  constructor(private readonly capacity = 32) {}

  /** The confirmation for `plan` is being shown for `input`. */
  record(input: unknown, plan: ResolvedUpload): void {
    const key = inputKey(input);
    this.shown.delete(key);
    this.shown.set(key, fingerprint(plan));
    while (this.shown.size > this.capacity) this.shown.delete(this.shown.keys().next().value!);
  }

  /** True once when `plan` is the plan whose confirmation was shown for `input`. */
  take(input: unknown, plan: ResolvedUpload): boolean {
    const key = inputKey(input);
    const recorded = this.shown.get(key);
    this.shown.delete(key);
    return recorded !== undefined && recorded === fingerprint(plan);
  }
}

function inputKey(input: unknown): string {
  try {
    return JSON.stringify(input) ?? 'undefined';
  } catch {
    return '\0unserialisable';
  }
}

function fingerprint(plan: ResolvedUpload): string {
  return JSON.stringify([plan.volume, plan.files.map((f) => [f.path, f.size, f.name]), plan.refused]);
}

function refused(checked: { ok: false; message: string }): ToolRunResult {
  return { ok: false, text: `Invalid input: ${checked.message}` };
}
