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
