// What a question carries and what an answer cites, as chips: code from the editor (file
// name and lines, removable while waiting above the composer), the volumes an agent
// conversation searches, and an answer's numbered sources, which match its markers [n].
// Every label goes in as text (dom.ts), so file names and snippets can never become markup.
import * as l10n from '@vscode/l10n';
import type { CitationView, CodeContextView, ConversationView, WebviewToHost } from '../chat/protocol';
import { button, el, userText, withUserText } from './dom';
import { formatNumber } from './locale';

type Post = (message: WebviewToHost) => void;

export function codeLabel(code: Pick<CodeContextView, 'filename' | 'lines'>): string {
  return code.lines ? codeLines(code.filename, code.lines) : code.filename;
}

function codeLines(filename: string, lines: { start: number; end: number }): string {
  return l10n.t({ message: '{0} · lines {1}-{2}', args: [filename, lines.start, lines.end], comment: ['{0} is a file name; {1} and {2} are line numbers'] });
}

/** The chip's text: the file name marked as not ours to translate, the words around it ours. */
function codeLabelParts(code: Pick<CodeContextView, 'filename' | 'lines'>): (string | HTMLElement)[] {
  const lines = code.lines;
  return lines ? withUserText([code.filename], ([name]) => codeLines(name, lines)) : [userText('span', {}, code.filename)];
}

/** Code chips; with `onRemove`, each has a × button (a real button: Tab reaches it, Enter and Space press it). */
export function codeChips(code: readonly CodeContextView[], onRemove?: (id: string) => void): HTMLElement {
  const list = el('ul', { class: 'chips code-chips', 'aria-label': l10n.t('Code sent with the question'), 'data-testid': 'code-chips' });
  for (const item of code) {
    const label = codeLabel(item);
    const chip = el(
      'li',
      {
        class: 'chip code-chip',
        title: l10n.t({
          message: '{0} ({1} characters, {2})',
          args: [label, formatNumber(item.text.length), item.languageId],
          comment: ['{0} is a file name and lines; {2} is a language id such as "typescript"'],
        }),
      },
      el('span', { class: 'codicon-text', 'aria-hidden': 'true' }, '‹›'),
      el('span', { class: 'chip-label' }, ...codeLabelParts(item)),
    );
    if (onRemove) {
      const remove = button(l10n.t({ message: 'Remove {0}', args: [label], comment: ['{0} is a file name and lines'] }), '×', 'chip-remove');
      remove.addEventListener('click', () => onRemove(item.id));
      chip.append(remove);
    }
    list.append(chip);
  }
  return list;
}

/**
 * Above the composer: the code waiting to be sent, and in agent mode the volumes this
 * conversation searches ("All volumes" until some are chosen) with a button that opens the
 * host's picker.
 */
export class ContextBar {
  readonly element = el('div', { class: 'context-bar', 'data-testid': 'context-bar' });

  constructor(private readonly post: Post) {}

  show(conversation: Pick<ConversationView, 'mode' | 'pendingCode' | 'contextVolumes' | 'contextFiles'>): void {
    this.element.replaceChildren();
    const code = conversation.pendingCode ?? [];
    if (code.length) this.element.append(codeChips(code, (id) => this.post({ type: 'removeCode', id })));
    if (conversation.mode === 'agent') this.element.append(this.searchRow(conversation.contextVolumes ?? [], conversation.contextFiles ?? []));
    this.element.hidden = this.element.childElementCount === 0;
  }

  /** Chosen files restrict the search to themselves (D18), so they replace the volumes while there are any. */
  private searchRow(chosen: NonNullable<ConversationView['contextVolumes']>, files: NonNullable<ConversationView['contextFiles']>): HTMLElement {
    const list = files.length ? this.fileChips(files) : this.volumeChips(chosen);
    const chooseVolumes = button(l10n.t('Choose the volumes the agent searches'), l10n.t('Volumes…'), 'ghost-button choose-volumes');
    chooseVolumes.addEventListener('click', () => this.post({ type: 'chooseContextVolumes' }));
    const chooseFiles = button(l10n.t('Choose files the agent searches'), l10n.t('Files…'), 'ghost-button choose-volumes');
    chooseFiles.addEventListener('click', () => this.post({ type: 'chooseContextFiles' }));
    return el(
      'div',
      { class: 'context-volumes' },
      el('span', { class: 'context-label' }, l10n.t({ message: 'Searches', comment: ['label before the volumes or files the agent searches'] })),
      list,
      chooseVolumes,
      chooseFiles,
    );
  }

  private fileChips(files: NonNullable<ConversationView['contextFiles']>): HTMLElement {
    const list = el('ul', { class: 'chips file-chips', 'aria-label': l10n.t('Files the agent searches'), 'data-testid': 'file-chips' });
    for (const file of files) {
      const chip = el('li', { class: 'chip file-chip', title: `${file.filename} (${file.volume})` }, userText('span', { class: 'chip-label' }, file.filename));
      const remove = button(l10n.t({ message: 'Stop searching {0}', args: [file.filename], comment: ['{0} is a file name'] }), '×', 'chip-remove');
      remove.addEventListener('click', () => this.post({ type: 'removeContextFile', fileId: file.fileId }));
      chip.append(remove);
      list.append(chip);
    }
    return list;
  }

  private volumeChips(chosen: NonNullable<ConversationView['contextVolumes']>): HTMLElement {
    const list = el('ul', { class: 'chips volume-chips', 'aria-label': l10n.t('Volumes the agent searches'), 'data-testid': 'volume-chips' });
    if (chosen.length === 0) list.append(el('li', { class: 'chip volume-chip all-volumes' }, el('span', { class: 'chip-label' }, l10n.t('All volumes'))));
    for (const volume of chosen) {
      const chip = el('li', { class: 'chip volume-chip', title: volume.personal ? `${volume.label} (${volume.volume})` : volume.label }, userText('span', { class: 'chip-label' }, volume.label));
      const remove = button(l10n.t({ message: 'Stop searching {0}', args: [volume.label], comment: ['{0} is a volume name'] }), '×', 'chip-remove');
      remove.addEventListener('click', () => this.post({ type: 'removeContextVolume', volume: volume.volume }));
      chip.append(remove);
      list.append(chip);
    }
    return list;
  }
}

/** The marker numbers of a source: its own, or its position for a conversation saved before numbering. */
export function markersOf(citation: CitationView, position: number): number[] {
  return citation.markers?.length ? citation.markers : [position + 1];
}

/**
 * An answer's sources, in marker order, once each: "[1] guide.md · docs". A click opens the
 * cited passage and reveals the file (the host checks the answer cited it).
 */
export function citationChips(turnId: string, citations: readonly CitationView[], post: Post): HTMLElement[] {
  const numbered = citations.map((citation, i) => ({ citation, markers: markersOf(citation, i) })).sort((a, b) => a.markers[0]! - b.markers[0]!);
  return numbered.map(({ citation, markers }) => {
    const tag = markers.map((n) => `[${n}]`).join('');
    const volume = citation.volumeLabel ?? citation.volume;
    const label = volume ? `${citation.filename} · ${volume}` : citation.filename;
    const chip = button(l10n.t({ message: 'Open source {0} {1}', args: [tag, label], comment: ['{0} is a marker such as [1]; {1} is a file name and its volume'] }), '', 'citation', {
      title: citation.snippet ?? label,
      'data-markers': markers.join(' '),
    });
    chip.append(el('span', { class: 'citation-number' }, tag), ' ', userText('span', { class: 'citation-file' }, citation.filename));
    if (volume) chip.append(' ', userText('span', { class: 'citation-volume' }, volume));
    chip.addEventListener('click', () => post({ type: 'openCitation', turnId, marker: markers[0]! }));
    return chip;
  });
}
