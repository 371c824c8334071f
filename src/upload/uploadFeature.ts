// PLACEHOLDER until issue 5 lands.
import * as vscode from 'vscode';
import type { ExtensionServices } from '../common/services';
import type { VolumesFeature } from '../volumes/volumesFeature';

export function registerUploadFeature(services: ExtensionServices, _deps: { volumes: VolumesFeature }): void {
  const notYet = () => vscode.window.showInformationMessage('Upload is not yet available in this build.');
  services.registerCommand('ksm.upload', notYet);
  services.registerCommand('ksm.upload.toVolume', notYet);
}
