// Upload's commands: from the Explorer (multi-select, folders), an editor tab, the palette
// (file picker) and a volume's inline button. Both run the one UploadFlow.
import * as vscode from 'vscode';
import { COMMAND } from '../../common/core/contributionIds';
import type { ExtensionServices } from '../../common/vscode/services';
import type { UploadFlow } from './uploadFlow';

export function registerUploadCommands(services: ExtensionServices, flow: UploadFlow): void {
  // Explorer and editor menus pass the clicked item and the whole selection; the palette passes nothing (the file picker asks).
  services.registerCommand(COMMAND.upload, (uri?: unknown, uris?: unknown) => flow.run(selectedUris(uri, uris)));
  // A volume's inline button passes its tree node.
  services.registerCommand(COMMAND.uploadToVolume, (node?: unknown) => flow.run(undefined, { volume: volumeOf(node) }));
}

function selectedUris(uri: unknown, uris: unknown): vscode.Uri[] | undefined {
  if (Array.isArray(uris) && uris.length && uris.every((u) => u instanceof vscode.Uri)) return uris;
  return uri instanceof vscode.Uri ? [uri] : undefined;
}

function volumeOf(node: unknown): string | undefined {
  const volume = node !== null && typeof node === 'object' ? (node as { volume?: unknown }).volume : undefined;
  return typeof volume === 'string' && volume ? volume : undefined;
}
