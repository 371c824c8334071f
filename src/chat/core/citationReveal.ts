// What a click on a source in an answer does, without `vscode`: open the cited passage (the
// text the service quoted, under its file name, volume and chunk) and reveal the file in the
// Volumes view; say why the file cannot be revealed when the service gave no volume and no
// attachment of the conversation says which; refuse a source no answer cited (the webview
// is untrusted). The reference has no endpoint for a whole chunk, so the passage is the
// citation's snippet (docs/service-contract.md, D19).
import * as l10n from '@vscode/l10n';
import type { CitedFile, CitedPassage } from './conversationContext';
import { citationVolumeLabel } from './citations';
import { shownInMessage, shownInput } from '../../common/core/untrustedText';

/** The URI scheme of the read-only passage documents (a TextDocumentContentProvider). */
export const CITATION_SCHEME = 'ksm-citation';

export type CitationRevealPlan = { kind: 'reveal'; volume: string; fileId: string } | { kind: 'explain'; message: string } | { kind: 'refuse' };

export function planCitationReveal(cited: CitedFile | undefined): CitationRevealPlan {
  if (!cited) return { kind: 'refuse' };
  if (!cited.volume) {
    // A notification: the service's file name is quoted as text (a link there runs a command when clicked).
    return { kind: 'explain', message: l10n.t('The service did not say which volume "{0}" is in, so it cannot be shown in the Volumes view.', shownInMessage(shownInput(cited.filename, 120))) };
  }
  return { kind: 'reveal', volume: cited.volume, fileId: cited.fileId };
}

export type CitationOpenPlan = { kind: 'refuse' } | { kind: 'open'; passage: PassageDocument; reveal: Exclude<CitationRevealPlan, { kind: 'refuse' }> };

/** A read-only document: `path` names it (its tab shows the file name), `text` is its content. */
export interface PassageDocument {
  path: string;
  query: string;
  text: string;
}

export function planCitationOpen(turnId: string, passage: CitedPassage | undefined): CitationOpenPlan {
  if (!passage) return { kind: 'refuse' };
  const reveal = planCitationReveal(passage);
  if (reveal.kind === 'refuse') return reveal;
  return { kind: 'open', passage: passageDocument(turnId, passage), reveal };
}

export function passageDocument(turnId: string, passage: CitedPassage): PassageDocument {
  const where = [
    citationVolumeLabel(passage.volume) ?? l10n.t('volume not given by the service'),
    passage.chunkIndex !== undefined ? `chunk ${passage.chunkIndex}` : undefined,
    passage.score !== undefined ? `score ${passage.score}` : undefined,
    `source ${passage.markers.map((n) => `[${n}]`).join('')}`,
  ].filter(Boolean);
  const text = [`${passage.filename} — ${where.join(' · ')}`, '', passage.snippet?.trim() || l10n.t('(The service sent no text for this passage.)'), ''].join('\n');
  // The file name without any folder part: it only names the tab (escaped and bounded: a
  // tab titled with U+202E or a 100 KB name is the service's word, not a file of ours).
  const name = shownInput(passage.filename.split(/[\\/]/).pop() || 'passage', 120);
  return { path: `/${name}`, query: `turn=${turnId}&source=${passage.marker}`, text };
}
