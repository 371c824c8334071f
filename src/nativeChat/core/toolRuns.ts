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
        const planned = planUpload(input, context, upload);
        if (!planned.ok) return refused(planned);
        const result = await uploadToVolume(planned.value, upload, context);
        if (result.uploaded.length) upload.onUploaded?.(planned.value.volume, result.uploaded.map((f) => f.uuid));
        return { ok: result.failed.length === 0, text: uploadResultText(planned.value.volume, result) };
      }
      default:
        return { ok: false, text: `Unknown tool '${String(name)}'.` };
    }
  } catch (error) {
    if (isCancellation(error) || context.signal?.aborted) throw error;
    return { ok: false, text: failureText(error) };
  }
}

/** Validates an upload's input and resolves its files: what the confirmation shows is what runs. */
export function planUpload(input: unknown, context: Pick<ToolContext, 'userId' | 'volumes'>, upload: Pick<UploadEnvironment, 'workspaceRoots' | 'maxFileBytes'>): Checked<ResolvedUpload> {
  const checked = checkUploadInput(input, context);
  if (!checked.ok) return checked;
  return resolveUploadPaths(checked.value, upload.workspaceRoots, upload.maxFileBytes);
}

function refused(checked: { ok: false; message: string }): ToolRunResult {
  return { ok: false, text: `Invalid input: ${checked.message}` };
}
