// PLACEHOLDER until issue 5 lands: the commands exist and say so, they never fake a result.
import * as vscode from 'vscode';
import type { AgentFileRef } from '../api/types';
import type { ExtensionServices } from '../common/services';

export interface VolumesFeatureDeps {
  askAgentAbout(files: Array<AgentFileRef & { volume: string }>): Promise<void>;
}

export interface VolumesFeature {
  /** Reveals and selects a file in the Volumes tree (used by chat citations). */
  revealFile(volume: string, fileId: string): Promise<void>;
  /** Re-lists a volume and starts live status polling for files not yet final. */
  refreshVolume(volume: string): void;
  /** Files currently known for a volume (for duplicate-name checks); undefined when not loaded. */
  watchUploaded(volume: string, uuids: string[]): void;
}

export function registerVolumesFeature(services: ExtensionServices, _deps: VolumesFeatureDeps): VolumesFeature {
  const notYet = () => vscode.window.showInformationMessage('Volumes are not yet available in this build.');
  for (const id of ['ksm.volumes.add', 'ksm.volumes.remove', 'ksm.volumes.refresh', 'ksm.volumes.refreshVolume', 'ksm.volumes.loadMore',
    'ksm.volumes.filter', 'ksm.volumes.clearFilter', 'ksm.volumes.sort', 'ksm.volumes.openSettings', 'ksm.files.delete', 'ksm.files.copyId', 'ksm.files.askAgent']) {
    services.registerCommand(id, notYet);
  }
  return { revealFile: async () => undefined, refreshVolume: () => undefined, watchUploaded: () => undefined };
}
