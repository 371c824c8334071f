// Files dragged from the Explorer (or the OS) onto a volume, one of its files or its
// placeholder rows are uploaded to that volume.
import * as vscode from 'vscode';
import type { VolumeNode, VolumesNode } from './volumeNodes';
import { COMMAND } from '../../common/core/contributionIds';

/** Uploads local files to a volume; the questions left (processing, model) are asked there. */
export type DropUpload = (volume: string, uris: vscode.Uri[]) => Thenable<unknown>;

/** Through the command, so a drop runs exactly the flow of the volume's upload button. */
const uploadThroughCommand: DropUpload = (volume, uris) => {
  const target: VolumeNode = { kind: 'volume', volume, personal: false };
  return vscode.commands.executeCommand(COMMAND.uploadToVolume, target, uris);
};

export class VolumeDropController implements vscode.TreeDragAndDropController<VolumesNode> {
  readonly dropMimeTypes = ['text/uri-list'];
  readonly dragMimeTypes: string[] = [];

  constructor(private readonly upload: DropUpload = uploadThroughCommand) {}

  async handleDrop(target: VolumesNode | undefined, data: vscode.DataTransfer, token?: vscode.CancellationToken): Promise<void> {
    if (!target) return;
    const uris = droppedFileUris(await data.get('text/uri-list')?.asString());
    // Once the upload runs, its own progress notification offers Cancel.
    if (uris.length === 0 || token?.isCancellationRequested) return;
    await this.upload(target.volume, uris);
  }
}

/** RFC 2483 uri-list: one URI a line, `#` comments; only `file:` URIs can be read and sent. */
function droppedFileUris(text: string | undefined): vscode.Uri[] {
  if (!text) return [];
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => vscode.Uri.parse(line))
    .filter((uri) => uri.scheme === 'file');
}
