// What a question carries and what an answer cites, as chips: code from the editor (file
// name and lines, removable while waiting above the composer), the volumes an agent
// conversation searches, and an answer's numbered sources, which match its markers [n].
// Every label goes in as text (dom.ts), so file names and snippets can never become markup.
import type { CitationView, CodeContextView, ConversationView, WebviewToHost } from '../chat/protocol';
import { button, el } from './dom';

type Post = (message: WebviewToHost) => void;

export function codeLabel(code: Pick<CodeContextView, 'filename' | 'lines'>): string {
  return code.lines ? `${code.filename} · lines ${code.lines.start}-${code.lines.end}` : code.filename;
}

/** Code chips; with `onRemove`, each has a × button (a real button: Tab reaches it, Enter and Space press it). */
export function codeChips(code: readonly CodeContextView[], onRemove?: (id: string) => void): HTMLElement {
  const list = el('ul', { class: 'chips code-chips', 'aria-label': 'Code sent with the question', 'data-testid': 'code-chips' });
  for (const item of code) {
    const label = codeLabel(item);
    const chip = el(
      'li',
      { class: 'chip code-chip', title: `${label} (${item.text.length.toLocaleString('en-US')} characters, ${item.languageId})` },
      el('span', { class: 'codicon-text', 'aria-hidden': 'true' }, '‹›'),
      el('span', { class: 'chip-label' }, label),
    );
    if (onRemove) {
      const remove = button(`Remove ${label}`, '×', 'chip-remove');
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
    const chooseVolumes = button('Choose the volumes the agent searches', 'Volumes…', 'ghost-button choose-volumes');
    chooseVolumes.addEventListener('click', () => this.post({ type: 'chooseContextVolumes' }));
    const chooseFiles = button('Choose files the agent searches', 'Files…', 'ghost-button choose-volumes');
    chooseFiles.addEventListener('click', () => this.post({ type: 'chooseContextFiles' }));
    return el('div', { class: 'context-volumes' }, el('span', { class: 'context-label' }, 'Searches'), list, chooseVolumes, chooseFiles);
  }

  private fileChips(files: NonNullable<ConversationView['contextFiles']>): HTMLElement {
    const list = el('ul', { class: 'chips file-chips', 'aria-label': 'Files the agent searches', 'data-testid': 'file-chips' });
    for (const file of files) {
      const chip = el('li', { class: 'chip file-chip', title: `${file.filename} (${file.volume})` }, el('span', { class: 'chip-label' }, file.filename));
      const remove = button(`Stop searching ${file.filename}`, '×', 'chip-remove');
      remove.addEventListener('click', () => this.post({ type: 'removeContextFile', fileId: file.fileId }));
      chip.append(remove);
      list.append(chip);
    }
    return list;
  }

  private volumeChips(chosen: NonNullable<ConversationView['contextVolumes']>): HTMLElement {
    const list = el('ul', { class: 'chips volume-chips', 'aria-label': 'Volumes the agent searches', 'data-testid': 'volume-chips' });
    if (chosen.length === 0) list.append(el('li', { class: 'chip volume-chip all-volumes' }, el('span', { class: 'chip-label' }, 'All volumes')));
    for (const volume of chosen) {
      const chip = el('li', { class: 'chip volume-chip', title: volume.personal ? `${volume.label} (${volume.volume})` : volume.label }, el('span', { class: 'chip-label' }, volume.label));
      const remove = button(`Stop searching ${volume.label}`, '×', 'chip-remove');
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
    const chip = button(`Open source ${tag} ${label}`, '', 'citation', { title: citation.snippet ?? label, 'data-markers': markers.join(' ') });
    chip.append(el('span', { class: 'citation-number' }, tag), ' ', el('span', { class: 'citation-file' }, citation.filename));
    if (volume) chip.append(' ', el('span', { class: 'citation-volume' }, volume));
    chip.addEventListener('click', () => post({ type: 'openCitation', turnId, marker: markers[0]! }));
    return chip;
  });
}
