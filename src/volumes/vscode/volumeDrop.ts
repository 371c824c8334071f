// Files dragged from the Explorer (or the OS) onto a volume, one of its files or its
// placeholder rows are uploaded to that volume.
import * as vscode from 'vscode';
import type { VolumesNode } from './volumeNodes';

/** Uploads local files to a volume; the questions left (processing, model) are asked there. */
export type DropUpload = (volume: string, uris: vscode.Uri[]) => Thenable<unknown>;

export class VolumeDropController implements vscode.TreeDragAndDropController<VolumesNode> {
  readonly dropMimeTypes = ['text/uri-list'];
  readonly dragMimeTypes: string[] = [];

  /** `upload` is the upload feature's flow (handed over by extension.ts), the one a volume's upload button runs. */
  constructor(private readonly upload: DropUpload) {}

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
