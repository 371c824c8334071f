// What a click on a source in an answer does, without `vscode`: reveal the file in the
// Volumes view, explain why it cannot (the service gave no volume and no attachment of the
// conversation says which), or refuse a file no answer cited (the webview is untrusted).
import type { CitedFile } from './chatEngine';

export type CitationRevealPlan =
  | { kind: 'reveal'; volume: string; fileId: string }
  | { kind: 'explain'; message: string }
  | { kind: 'refuse' };

export function planCitationReveal(cited: CitedFile | undefined): CitationRevealPlan {
  if (!cited) return { kind: 'refuse' };
  if (!cited.volume) {
    return { kind: 'explain', message: `The service did not say which volume "${cited.filename}" is in, so it cannot be shown in the Volumes view.` };
  }
  return { kind: 'reveal', volume: cited.volume, fileId: cited.fileId };
}
