// Markdown → sanitized DOM. Three layers, each enough on its own for its part:
// markdown-it never passes raw HTML through (`html: false`) and rejects script-like URLs;
// DOMPurify keeps only an allow-list of tags and attributes; `decorate` then turns links
// into host messages and code blocks into blocks with action buttons. The webview CSP is
// a fourth layer, not a reason to relax the other three.
import * as l10n from '@vscode/l10n';
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { el, userText } from './dom';
import { highlightCode } from './highlight';
import { highlightBudget, type HighlightBudget } from './highlightBudget';

const markdown = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight: (code, language) => (highlighting ? highlightCode(code, language.toLowerCase(), budget) : ''),
});
/** Off while a code fence is still streaming: re-highlighting it every frame would make its cost quadratic. */
let highlighting = true;
/** The answer's highlighting budget while one of its parts is rendered. */
let budget: HighlightBudget = highlightBudget();

// Images are never loaded (the CSP would block remote ones anyway, and tracking pixels are
// how an answer could leak a conversation): an image becomes a link-looking placeholder
// whose click goes through the same host-validated `openLink` path as any link.
markdown.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index];
  const alt = self.renderInlineAsText(token.children ?? [], options, env);
  const src = String(token.attrGet('src') ?? '');
  const label = markdown.utils.escapeHtml(
    alt
      ? l10n.t({ message: '[image: {0}]', args: [alt], comment: ['stands for an image that is not loaded; {0} is its description'] })
      : l10n.t({ message: '[image]', comment: ['stands for an image that is not loaded'] }),
  );
  return `<a href="${markdown.utils.escapeHtml(src)}" class="image-placeholder">${label}</a>`;
};

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'strong',
  'em',
  's',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'span',
];
// highlight.js marks sub-scopes with a trailing underscore (`hljs-title function_`,
// `hljs-title class_`); they only select token colours in highlight.css.
const SAFE_CLASS = /^(?:hljs(?:-[\w-]+)?|[a-z]+_{1,2}|language-[\w+#.-]{1,40}|image-placeholder)$/;
const OPENABLE_LINK = /^(?:https?:|mailto:)/i;

DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
  if (data.attrName === 'class') {
    data.attrValue = data.attrValue
      .split(/\s+/)
      .filter((name) => SAFE_CLASS.test(name))
      .join(' ');
  }
});

/**
 * `budget`: the answer's, when it is drawn in parts (each finished block once, in order), so the
 * whole answer gets HIGHLIGHT_LIMITS and no more; without one, this source alone gets them.
 */
export function renderMarkdown(source: string, options: { highlight?: boolean; budget?: HighlightBudget } = {}): DocumentFragment {
  highlighting = options.highlight ?? true;
  budget = options.budget ?? highlightBudget();
  const html = markdown.render(source);
  highlighting = true;
  const fragment = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'class', 'start'],
    ALLOWED_URI_REGEXP: OPENABLE_LINK,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  decorate(fragment);
  return fragment;
}

function decorate(fragment: DocumentFragment): void {
  for (const anchor of Array.from(fragment.querySelectorAll('a'))) {
    const href = anchor.getAttribute('href') ?? '';
    if (!OPENABLE_LINK.test(href)) {
      anchor.replaceWith(el('span', { class: 'inert-link' }, anchor.textContent ?? ''));
      continue;
    }
    // No href at all: the webview has nothing to navigate to, the host decides.
    anchor.removeAttribute('href');
    anchor.dataset.href = href;
    anchor.setAttribute('role', 'link');
    anchor.tabIndex = 0;
    anchor.title = href;
    // An image's placeholder says "[image: …]" in our words, around the answer's alt text.
    if (anchor.classList.contains('image-placeholder')) anchor.translate = true;
  }
  for (const table of Array.from(fragment.querySelectorAll('table'))) {
    // A box that scrolls must be reachable with the keyboard to scroll it (WCAG 2.1.1).
    const scroller = el('div', { class: 'table-scroll', tabindex: '0', role: 'group', 'aria-label': l10n.t('Table') });
    table.replaceWith(scroller);
    scroller.append(table);
  }
  for (const pre of Array.from(fragment.querySelectorAll('pre'))) {
    const code = pre.querySelector('code');
    const language = /(?:^|\s)language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1] ?? '';
    const toolbar = el(
      'div',
      // Our words inside the answer (which is not translated, turnView.ts).
      { class: 'code-toolbar', translate: 'yes' },
      userText('span', { class: 'code-language' }, language),
      codeButton('copy-code', l10n.t('Copy code'), l10n.t({ message: 'Copy', comment: ['copies a code block'] })),
      codeButton('insert-code', l10n.t('Insert at cursor'), l10n.t({ message: '↳ Insert', comment: ['inserts a code block at the cursor; keep the arrow'] })),
      codeButton('new-file-with-code', l10n.t('New file with code'), l10n.t({ message: '+ New file', comment: ['opens a code block in a new file; keep the plus'] })),
    );
    const block = el('div', { class: 'code-block' });
    if (language) block.dataset.language = language;
    // Long lines scroll sideways inside the block: the keyboard must reach it to scroll it.
    pre.tabIndex = 0;
    pre.setAttribute('role', 'group');
    pre.setAttribute('aria-label', language ? l10n.t({ message: 'Code, {0}', args: [language], comment: ['{0} is a language id such as "ts"'] }) : l10n.t('Code'));
    pre.replaceWith(block);
    block.append(toolbar, pre);
  }
}

function codeButton(action: string, label: string, text: string): HTMLButtonElement {
  return el('button', { type: 'button', class: 'code-action', 'data-action': action, 'aria-label': label, title: label }, text);
}

/** The code exactly as written between the fences (markdown-it adds one trailing newline). */
export function codeOfBlock(block: Element): string {
  const text = block.querySelector('pre code')?.textContent ?? block.querySelector('pre')?.textContent ?? '';
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

/** An answer's marker numbers [n] that have a source, each with the file it names. */
export type CitationMarkers = ReadonlyMap<number, string>;

const MARKER = /\[(\d{1,3})\]/g;
/** Text inside these is shown as written: code, links (live or inert) and markers already made. */
const NOT_MARKED = 'pre, code, a, .inert-link, [data-citation-marker]';

/**
 * Turns the [n] markers of sanitized markdown that name a source into keyboard-reachable
 * links (the transcript's delegated handlers post `openCitation`). It runs after DOMPurify
 * and builds every element itself from text, so the answer's own markup can never forge
 * one: `data-` attributes do not survive sanitizing. Markers without a source stay text;
 * a marker whose source went away becomes text again.
 */
export function markCitations(root: Element | DocumentFragment, sources: CitationMarkers): void {
  for (const marker of Array.from(root.querySelectorAll<HTMLElement>('[data-citation-marker]'))) {
    const filename = sources.get(Number(marker.dataset.citationMarker));
    if (filename === undefined) marker.replaceWith(marker.textContent ?? '');
    else {
      marker.setAttribute('aria-label', markerLabel(Number(marker.dataset.citationMarker), filename));
      marker.title = filename;
    }
  }
  if (sources.size === 0) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as Text;
    if (text.data.includes('[') && !text.parentElement?.closest(NOT_MARKED)) texts.push(text);
  }
  for (const text of texts) markText(text, sources);
}

function markText(text: Text, sources: CitationMarkers): void {
  const parts: (string | HTMLElement)[] = [];
  let last = 0;
  for (const match of text.data.matchAll(MARKER)) {
    const number = Number(match[1]);
    const filename = sources.get(number);
    if (filename === undefined) continue;
    parts.push(text.data.slice(last, match.index), citationMarker(number, filename));
    last = match.index + match[0].length;
  }
  if (parts.length === 0) return;
  parts.push(text.data.slice(last));
  text.replaceWith(...parts.filter((part) => part !== ''));
}

function citationMarker(number: number, filename: string): HTMLElement {
  return el('span', { class: 'citation-marker', role: 'link', tabindex: '0', 'data-citation-marker': String(number), 'aria-label': markerLabel(number, filename), title: filename }, `[${number}]`);
}

function markerLabel(number: number, filename: string): string {
  return l10n.t({ message: 'Source {0}: {1}', args: [number, filename], comment: ['a citation marker: {0} is its number, {1} a file name'] });
}
