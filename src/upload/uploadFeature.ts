// Upload: wiring only. The commands are in vscode/commands.ts, the flow they run in
// vscode/uploadFlow.ts, its dialogs in vscode/uploadPrompts.ts, and what needs no VS Code
// (planning duplicates, the run, what is remembered) in core/.
import type * as vscode from 'vscode';
import { reportError } from '../common/vscode/commands';
import type { ExtensionServices } from '../common/vscode/services';
import type { VolumesFeature } from '../volumes/volumesFeature';
import { registerUploadCommands } from './vscode/commands';
import { WORKSPACE_STATE_KEY } from '../common/core/storageKeys';
import { UploadedContents } from './core/uploadedContents';
import { createReplacementTracker } from './vscode/replacements';
import { notifications, UploadFlow } from './vscode/uploadFlow';

export interface UploadFeature {
  /** Uploads local files to `volume`, asking what is left (processing, model); a drop on the Volumes view. Failures are reported here. */
  uploadTo(volume: string, uris: vscode.Uri[]): Promise<void>;
}

/** After a reload, pending replacements are looked at this long after activation (never during it). */
const RESUME_DELAY_MS = 10_000;

export function registerUploadFeature(services: ExtensionServices, deps: { volumes: VolumesFeature }): UploadFeature {
  const replacements = createReplacementTracker(services, deps.volumes);
  if (replacements.pending.length > 0) {
    const timer = setTimeout(() => replacements.resume(), RESUME_DELAY_MS);
    services.context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  }
  const state = services.context.workspaceState;
  const uploaded = new UploadedContents(state.get(WORKSPACE_STATE_KEY.uploadedContents), (entries) => void state.update(WORKSPACE_STATE_KEY.uploadedContents, entries));
  const flow = new UploadFlow({ services, volumes: deps.volumes, replacements, notices: notifications(services), uploaded });
  registerUploadCommands(services, flow);
  return {
    uploadTo: async (volume, uris) => {
      try {
        await flow.run(uris, { volume });
      } catch (error) {
        await reportError(services.log, error, 'Upload failed');
      }
    },
  };
}
