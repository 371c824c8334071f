// Tiny element builder. Every piece of text goes in as a Text node, never through
// innerHTML, so file names, titles and reasoning can never become markup.

type Attributes = Record<string, string | number | boolean | undefined>;
type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  appendChildren(element, children);
  return element;
}

export function appendChildren(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

export function button(label: string, text: string, className = 'ghost-button', extra: Attributes = {}): HTMLButtonElement {
  return el('button', { type: 'button', class: className, 'aria-label': label, title: label, ...extra }, text);
}

/**
 * An element holding text that is not ours to translate: a file, volume or model name, a
 * conversation title, the user's or the model's words. HTML's `translate="no"` says so (a
 * browser's page translation leaves it alone too); our own words inside it (a code block's
 * buttons) say `translate="yes"` again. The pseudo-locale test (test/webview/l10n.test.ts)
 * checks every other text of the panel is localised.
 */
export function userText<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  return el(tag, { ...attributes, translate: 'no' }, ...children);
}

/**
 * A translated sentence holding values that are not ours (a file name, an id): each value
 * becomes a `userText` element (`tag`), the rest stays text, wherever the translation puts
 * it. `make` gets one mark per value and builds the sentence with them:
 * `withUserText([file], ([name]) => l10n.t('{0} · lines {1}-{2}', name, 3, 9))`. The values
 * never pass through the sentence, so they may hold anything (the marks included), and a
 * translation cannot turn them into markup (they are Text nodes).
 */
export function withUserText(values: readonly string[], make: (marks: string[]) => string, tag: 'span' | 'code' = 'span'): (string | HTMLElement)[] {
  const marks = values.map((_, i) => `\uE000${i}\uE001`);
  return make(marks)
    .split(/\uE000(\d+)\uE001/)
    .map((part, i) => (i % 2 === 1 ? userText(tag, {}, values[Number(part)] ?? '') : part))
    .filter((part) => part !== '');
}

/**
 * Text that grows at the end of an element (streamed reasoning, an answer's text beyond its
 * last parse). Chromium lays out a growing paragraph whole at each frame: appending 2 MB to
 * one took it 229 s of layout over 1,000 frames, in 16 KB blocks 2 s. So the text goes in
 * inline up to TEXT_CHUNK_CHARS, then in block-level chunks (`display: block` spans, which also
 * fit in a paragraph or a code element) started at a line break (or at four times that size).
 */
export const TEXT_CHUNK_CHARS = 16_000;

export class ChunkedText {
  /** Whether the text is code (inside a <pre>). */
  readonly inCode: boolean;
  private chunk: Element;
  private chunkChars = 0;

  constructor(readonly container: Element) {
    this.chunk = container;
    this.inCode = container.closest('pre') !== null;
  }

  append(text: string): void {
    while (text) {
      if (this.chunkChars < TEXT_CHUNK_CHARS) {
        const take = cutPoint(text, TEXT_CHUNK_CHARS - this.chunkChars);
        this.add(text.slice(0, take));
        text = text.slice(take);
        continue;
      }
      // The chunk is full: it takes the rest of its last line (within a hard limit), then a new one starts.
      const room = 4 * TEXT_CHUNK_CHARS - this.chunkChars;
      const lineEnd = text.slice(0, room).indexOf('\n');
      if (lineEnd === -1 && text.length < room) return this.add(text);
      const take = lineEnd === -1 ? cutPoint(text, room) : lineEnd + 1;
      this.add(text.slice(0, take));
      text = text.slice(take);
      this.chunk = this.container.appendChild(el('span', { class: 'text-chunk' }));
      this.chunkChars = 0;
    }
  }

  private add(text: string): void {
    if (!text) return;
    // A new Text node each time: appending to one growing node would copy it each time.
    this.chunk.append(document.createTextNode(text));
    this.chunkChars += text.length;
  }
}

/** Where to cut `text` to take at most `length` characters, never between the two halves of a surrogate pair. */
export function cutPoint(text: string, length: number): number {
  return length > 1 && length < text.length && /[\uD800-\uDBFF]/.test(text[length - 1]) ? length - 1 : length;
}
