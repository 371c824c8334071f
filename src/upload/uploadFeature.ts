// Upload: wiring only. The commands are in vscode/commands.ts, the flow they run in
// vscode/uploadFlow.ts, its dialogs in vscode/uploadPrompts.ts, and what needs no VS Code
// (planning duplicates, the run, what is remembered) in core/.
import type * as vscode from 'vscode';
import { reportError } from '../common/vscode/commands';
import type { ExtensionServices } from '../common/vscode/services';
import type { VolumesFeature } from '../volumes/volumesFeature';
import { LAZY_COMMANDS } from '../common/core/contributionIds';
import { registerLazyCommands } from '../common/vscode/lazyCommands';
import { WORKSPACE_STATE_KEY } from '../common/core/storageKeys';
import { createReplacementTracker } from './vscode/replacements';
import type { UploadFlow } from './vscode/uploadFlow';

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
  // The flow (reading folders, the dialogs, the run) loads at the first upload, not at activation.
  let flow: Promise<UploadFlow> | undefined;
  const loadFlow = (): Promise<UploadFlow> =>
    (flow ??= Promise.all([import('./vscode/uploadFlow'), import('./core/uploadedContents')]).then(
      ([{ notifications, UploadFlow }, { UploadedContents }]) => {
        const state = services.context.workspaceState;
        const uploaded = new UploadedContents(state.get(WORKSPACE_STATE_KEY.uploadedContents), (entries) => void state.update(WORKSPACE_STATE_KEY.uploadedContents, entries));
        return new UploadFlow({ services, volumes: deps.volumes, replacements, notices: notifications(services), uploaded });
      },
      (error: unknown) => {
        flow = undefined;
        throw error;
      },
    ));
  registerLazyCommands(services, LAZY_COMMANDS.upload, async () => {
    const [loaded, { registerUploadCommands }] = await Promise.all([loadFlow(), import('./vscode/commands')]);
    return (recorder) => registerUploadCommands(recorder, loaded);
  });
  return {
    uploadTo: async (volume, uris) => {
      try {
        await (await loadFlow()).run(uris, { volume });
      } catch (error) {
        await reportError(services.log, error, 'Upload failed');
      }
    },
  };
}
