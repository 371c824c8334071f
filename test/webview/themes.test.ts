// Code in answers must be readable in all four theme kinds (issue 14, defect 1): every
// piece of code text, highlighted or plain, block or inline, is measured in Chromium against
// the background it is really drawn on (every layer composited, as on screen), with the
// WCAG contrast ratio. The page gets what VS Code gives a webview: its default stylesheet,
// the body class and the built-in theme's variables. A screenshot per theme is kept.
import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import type { WebviewPage } from './support/chromium';
import { assistantTurn, conversation, init, userTurn } from './support/conversations';
import { APPLY_THEME_IN_PAGE, THEMES, type VsCodeTheme } from './support/vscodeThemes';
import { useWebviewSuite } from './support/suite';

const SCREENSHOTS = 'test-results/webview';

const ANSWER = [
  'The signature is `answer(question: str) -> str`; see [`ask()`](https://example.com/ask).',
  '',
  '```python',
  '@cache',
  'def answer(question: str) -> str:',
  '    """Look the question up."""',
  '    # plain text around tokens: brackets, arrows, colons',
  "    pattern = re.compile(r'^\\w+$')",
  '    return f"{question!r}: {len(question) * 2}" if pattern else None',
  '```',
  '',
  '```ts',
  'export class Store<T> implements Iterable<T> {',
  '  private readonly items = new Map<string, T>();',
  '  get(id: string): T | undefined { return this.items.get(id) ?? undefined; }',
  '  *[Symbol.iterator]() { yield* this.items.values(); } // 42',
  '}',
  '```',
  '',
  '```bash',
  'for f in *.md; do echo "$f" | grep -c "TODO" >> "${OUT:-out.txt}"; done',
  '```',
  '',
  '```json',
  '{ "name": "ksm", "version": 3, "private": true, "tags": ["a", null] }',
  '```',
  '',
  '```html',
  '<!DOCTYPE html>',
  '<a href="https://example.com" class="x">link &amp; text</a>',
  '```',
  '',
  '```css',
  '.chat > #main:hover { color: #fff !important; margin: 0 4px; }',
  '```',
  '',
  '```diff',
  '@@ -1,2 +1,2 @@',
  '-old line',
  '+new line',
  '```',
  '',
  '```',
  'plain text block -> no language, (brackets) and: colons',
  '```',
].join('\n');

/** The one browser global used inside `evaluate` (tests compile without the DOM lib). */
interface PageStyles {
  getComputedStyle(node: unknown): { color: string };
}

interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

interface CodeRun {
  text: string;
  classes: string;
  inline: boolean;
  color: string;
  /** The element's own opacity and those of its ancestors, innermost first. */
  opacities: number[];
  /** Background colours from the text's element up to <html>, innermost first. */
  backgrounds: string[];
}

/** Every run of code text with the colours that decide how it looks. Plain JS for the page. */
const COLLECT_CODE_RUNS = `() => {
  const runs = [];
  const walker = document.createTreeWalker(document.querySelector('.transcript'), NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    const code = element.closest('code');
    if (!code || !node.textContent.trim()) continue;
    const backgrounds = [];
    const opacities = [];
    for (let layer = element; layer; layer = layer.parentElement) {
      const style = getComputedStyle(layer);
      backgrounds.push(style.backgroundColor);
      opacities.push(Number(style.opacity));
    }
    runs.push({
      text: node.textContent,
      classes: element.className,
      inline: !code.closest('pre'),
      color: getComputedStyle(element).color,
      opacities,
      backgrounds,
    });
  }
  return runs;
}`;

function parseColor(css: string): Rgba {
  const match = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(css);
  if (!match) throw new Error(`unexpected computed colour ${css}`);
  return { r: Number(match[1]), g: Number(match[2]), b: Number(match[3]), a: match[4] === undefined ? 1 : Number(match[4]) };
}

function over(top: Rgba, bottom: Rgba): Rgba {
  const mix = (front: number, back: number) => front * top.a + back * (1 - top.a);
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 1 };
}

/** WCAG 2 relative luminance and contrast ratio. */
function luminance({ r, g, b }: Rgba): number {
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

function contrast(first: Rgba, second: Rgba): number {
  const [light, dark] = [luminance(first), luminance(second)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** The colour the run is drawn on and the colour its text ends up as, both opaque. */
function drawnColours(run: CodeRun): { text: Rgba; background: Rgba } {
  // The page canvas under everything is white in headless Chromium's light scheme; every
  // theme paints an opaque body anyway.
  let background: Rgba = { r: 255, g: 255, b: 255, a: 1 };
  for (const layer of [...run.backgrounds].reverse()) background = over(parseColor(layer), background);
  const colour = parseColor(run.color);
  const opacity = run.opacities.reduce((product, value) => product * value, 1);
  return { text: over({ ...colour, a: colour.a * opacity }, background), background };
}

function hex(css: string): string {
  const { r, g, b } = parseColor(css);
  return `#${[r, g, b].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}

describe('webview code colours in every theme kind', function () {
  const suite = useWebviewSuite();

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  for (const theme of THEMES) {
    const minimum = theme.highContrast ? 7 : 4.5;

    it(`${theme.name}: all code text reaches ${minimum}:1 and takes the theme's token colours`, async () => {
      const webview = await suite.openPage();
      try {
        await webview.page.setViewportSize({ width: 520, height: 1400 });
        await applyTheme(webview, theme);
        await webview.hostPost(init(conversation([userTurn('u1', 'How do I answer?'), assistantTurn('a1', ANSWER)])));
        await webview.settle();
        await webview.page.screenshot({ path: `${SCREENSHOTS}/theme-${theme.name}.png`, fullPage: true });

        const runs = (await webview.page.evaluate(`(${COLLECT_CODE_RUNS})()`)) as CodeRun[];
        const tokenClasses = new Set(runs.flatMap((run) => run.classes.split(/\s+/)).filter((name) => name.startsWith('hljs-')));
        assert.ok(tokenClasses.size >= 15, `the sample exercises many token kinds (got ${[...tokenClasses].join(' ')})`);
        assert.ok(
          runs.some((run) => run.inline),
          'inline code is measured too',
        );

        const failures = runs
          .map((run) => {
            const { text, background } = drawnColours(run);
            return { run, ratio: contrast(text, background) };
          })
          .filter(({ ratio }) => ratio < minimum)
          .map(
            ({ run, ratio }) =>
              `${JSON.stringify(run.text.slice(0, 30))} (${run.classes || 'plain'}${run.inline ? ', inline' : ''}) ${run.color} on ${run.backgrounds.find((layer) => !layer.endsWith(', 0)')) ?? 'nothing'}: ${ratio.toFixed(2)}`,
          );
        assert.deepEqual(failures, [], `code text under ${minimum}:1 in ${theme.name}`);

        // Code looks as in the editor: plain code in the editor foreground, tokens in the
        // theme's own token colours.
        const colourOf = async (selector: string) =>
          hex(
            await webview.page
              .locator(selector)
              .first()
              .evaluate((node) => (globalThis as unknown as PageStyles).getComputedStyle(node).color),
          );
        const editorForeground = theme.variables['editor-foreground'];
        assert.equal(await colourOf('.code-block[data-language="python"] pre code'), editorForeground);
        const expected = theme.highContrast ? {} : theme.tokens;
        for (const [token, selector] of Object.entries({
          keyword: '.code-block[data-language="python"] .hljs-keyword',
          string: '.code-block[data-language="python"] .hljs-string',
          comment: '.code-block[data-language="python"] .hljs-comment',
          function: '.code-block[data-language="python"] .hljs-title',
          number: '.code-block[data-language="python"] .hljs-number',
        })) {
          const actual = await colourOf(selector);
          // High-contrast themes may deepen a token colour to reach 7:1 (highlight.css).
          if (token in expected) assert.equal(actual, expected[token as keyof typeof expected], `${token} in ${theme.name}`);
          else assert.notEqual(actual, editorForeground, `${token} is highlighted in ${theme.name}`);
        }
      } finally {
        assert.deepEqual(webview.pageErrors, []);
        await webview.close();
      }
    });
  }

  it('keeps every token in the editor foreground when no theme kind is known', async () => {
    const webview = await suite.openPage();
    try {
      const { kind: _kind, ...unknown } = THEMES[0];
      await applyTheme(webview, { ...unknown, kind: 'vscode-unknown' as never });
      await webview.hostPost(init(conversation([assistantTurn('a1', ANSWER)])));
      await webview.settle();
      const colours = await webview.page
        .locator('.code-block pre code [class^="hljs-"]')
        .evaluateAll((nodes) => [...new Set(nodes.map((node) => (globalThis as unknown as PageStyles).getComputedStyle(node).color))]);
      assert.deepEqual(colours.map(hex), [THEMES[0].variables['editor-foreground']]);
    } finally {
      await webview.close();
    }
  });
});

async function applyTheme(webview: WebviewPage, theme: VsCodeTheme): Promise<void> {
  await webview.page.evaluate(`(${APPLY_THEME_IN_PAGE})(${JSON.stringify(theme)})`);
}
