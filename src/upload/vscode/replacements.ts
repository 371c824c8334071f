// The replacements waiting for their new copy to be processed, kept in globalState so they
// survive a reload (upload/core/pendingReplacements.ts does the watching).
import * as vscode from 'vscode';
import { errorMessage } from '../../api/errors';
import { GLOBAL_STATE_KEY } from '../../common/core/storageKeys';
import { volumeDisplayName } from '../../common/core/volumeTargets';
import type { ExtensionServices } from '../../common/vscode/services';
import { personalVolume } from '../../common/vscode/settings';
import type { VolumesFeature } from '../../volumes/volumesFeature';
import { ReplacementTracker } from '../core/pendingReplacements';

/** A tracker over the extension's globalState; disposed with the extension. */
export function createReplacementTracker(services: ExtensionServices, volumes: VolumesFeature): ReplacementTracker {
  const state = services.context.globalState;
  const replacements = new ReplacementTracker({
    service: () => services.getClient(),
    storage: {
      get: () => state.get<unknown>(GLOBAL_STATE_KEY.pendingReplacements, []),
      set: async (pending) => void (await state.update(GLOBAL_STATE_KEY.pendingReplacements, pending)),
    },
    onSettled: ({ pending, outcome, message }) => {
      services.log.info(`[upload] replace ${outcome}: ${message}`);
      volumes.refreshVolume(pending.volume);
      if (outcome !== 'replaced') void vscode.window.showWarningMessage(message);
    },
    volumeName: (volume) => volumeDisplayName(volume, personalVolume()),
    onError: (error) => services.log.warn(`[upload] pending replacements: ${errorMessage(error)}`),
  });
  services.context.subscriptions.push({ dispose: () => replacements.dispose() });
  return replacements;
}
