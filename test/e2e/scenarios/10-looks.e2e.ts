import assert from 'node:assert/strict';
import { ChatView } from '../harness/chat';
import { eventually } from '../harness/eventually';
import { useScenario } from '../harness/scenario';
import { setApiKeyThroughPalette } from '../harness/steps';

// Issue 14's acceptance for looks, in the real VS Code: in each of the four theme kinds and
// with the side bar at its narrowest (~170 px) and wide, a conversation with a code answer
// shows no sideways scroll in the chat, keeps ⚙ on screen, and every piece of code text
// reaches a readable contrast against what it is drawn on (computed colours in the webview
// frame). A screenshot per theme and width lands in test-results/e2e/10-looks/.

const THEMES = [
  { name: 'Dark Modern', setting: 'Default Dark Modern', bodyClass: 'vs-dark' },
  { name: 'Light Modern', setting: 'Default Light Modern', bodyClass: 'vs' },
  { name: 'Dark High Contrast', setting: 'Default High Contrast', bodyClass: 'hc-black' },
  { name: 'Light High Contrast', setting: 'Default High Contrast Light', bodyClass: 'hc-light' },
] as const;

/** Measured inside the chat webview: sideways overflow, the ⚙ button, and the contrast of every code text run. Plain JS for the page. */
const LOOKS = `(root) => {
  const doc = root.ownerDocument;
  const win = doc.defaultView;
  const parse = (css) => { const m = css.match(/rgba?\\(([^)]+)\\)/); if (!m) return { r: 0, g: 0, b: 0, a: 0 }; const [r, g, b, a] = m[1].split(',').map((v) => parseFloat(v)); return { r, g, b, a: a === undefined ? 1 : a }; };
  const over = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
  const lum = ({ r, g, b }) => { const c = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b); };
  const ratio = (x, y) => { const [l, d] = [lum(x), lum(y)].sort((p, q) => q - p); return (l + 0.05) / (d + 0.05); };
  const background = (node) => {
    const layers = [];
    for (let n = node; n; n = n.parentElement) layers.push(parse(win.getComputedStyle(n).backgroundColor));
    layers.push(parse(win.getComputedStyle(doc.documentElement).backgroundColor));
    // Under a transparent page the side bar shows through the webview's frame.
    const sideBar = win.getComputedStyle(doc.documentElement).getPropertyValue('--vscode-sideBar-background').trim();
    let colour = sideBar ? parse(sideBar.startsWith('#') ? hexToRgb(sideBar) : sideBar) : { r: 255, g: 255, b: 255, a: 1 };
    colour.a = 1;
    for (const layer of layers.reverse()) if (layer.a > 0) colour = over(layer, colour);
    return colour;
  };
  function hexToRgb(hex) { const h = hex.replace('#', ''); const n = h.length === 3 ? h.split('').map((c) => c + c).join('') : h.slice(0, 6); return 'rgb(' + parseInt(n.slice(0, 2), 16) + ',' + parseInt(n.slice(2, 4), 16) + ',' + parseInt(n.slice(4, 6), 16) + ')'; }
  const runs = [];
  const walker = doc.createTreeWalker(doc.body, 4);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.textContent.trim()) continue;
    const parent = t.parentElement;
    if (!parent || !parent.closest('pre code, code')) continue;
    const style = win.getComputedStyle(parent);
    let opacity = 1;
    for (let n = parent; n; n = n.parentElement) opacity *= parseFloat(win.getComputedStyle(n).opacity);
    const back = background(parent);
    const text = over({ ...parse(style.color), a: parse(style.color).a * opacity }, back);
    runs.push({ text: t.textContent.slice(0, 30), ratio: ratio(text, back), color: style.color });
  }
  const scroller = doc.scrollingElement;
  const sideways = [...doc.querySelectorAll('*')].filter((n) => {
    const s = win.getComputedStyle(n);
    return /auto|scroll/.test(s.overflowX) && !n.matches('.code-block pre, .table-scroll') && n.getClientRects().length > 0 && n.scrollWidth > n.clientWidth + 1;
  }).map((n) => n.className || n.localName);
  const gear = doc.querySelector('button[aria-label="Parameters"]');
  const g = gear && gear.getBoundingClientRect();
  return {
    width: win.innerWidth,
    pageScrollsSideways: scroller.scrollWidth > scroller.clientWidth + 1,
    sideways,
    gear: g ? { left: g.left, right: g.right, width: g.width, height: g.height } : null,
    runs,
  };
}`;

interface Looks {
  width: number;
  pageScrollsSideways: boolean;
  sideways: string[];
  gear: { left: number; right: number; width: number; height: number } | null;
  runs: Array<{ text: string; ratio: number; color: string }>;
}

describe('Scenario 10: looks — four theme kinds, side bar at 170 px and wide: no sideways scroll, ⚙ on screen, readable code', function () {
  this.timeout(300_000);
  const scenario = useScenario('10-looks');
  let chat: ChatView;
  let originalWidth: number | undefined;
  let startTheme = 'Light Modern';

  before(async function () {
    const { workbench, run } = scenario;
    if (await workbench.page.locator('.monaco-workbench.vs-dark').count()) startTheme = 'Dark Modern';
    await setApiKeyThroughPalette(workbench, run.emulator.apiKey);
    await workbench.runCommand('Notifications: Clear All Notifications');
    chat = new ChatView(workbench);
    await chat.open();
    originalWidth = (await workbench.page.locator('.part.sidebar').boundingBox())?.width;
    await chat.newChat();
    await chat.modeSelect().selectOption('chat');
    // The emulator answers a question about code with a fenced block (emulator/responder.ts).
    await chat.send('Show me Python code: def answer(question: str) -> str');
    assert.equal(await chat.waitForAnswerToSettle(), 'done');
    await chat.lastAnswer().locator('pre code').first().waitFor();
  });

  for (const theme of THEMES) {
    it(`${theme.name}: narrow and wide`, async () => {
      const { workbench } = scenario;
      await workbench.setColorTheme(theme.name);
      await eventually(
        async () => (await workbench.page.locator(`.monaco-workbench.${theme.bodyClass}`).count()) > 0,
        async () => `the workbench never switched to ${theme.name}; classes: ${await workbench.page.locator('.monaco-workbench').getAttribute('class')}`,
        30_000,
      );
      await chat.open();
      for (const width of [170, 600]) {
        await workbench.setSideBarWidth(width);
        const looks = await eventually(
          async () => {
            const measured = (await chat.frame.locator('body').evaluate(`(${LOOKS})(document.body)`)) as Looks;
            // Wait until the webview has its new width and the theme's colours.
            return Math.abs(measured.width - width) < 40 && measured.runs.length > 0 ? measured : undefined;
          },
          async () => `the chat never took the width ${width}`,
          20_000,
          250,
        );
        await workbench.screenshot(`${theme.name}-${width}px`);
        const where = `${theme.name} at ${width} px`;
        assert.equal(looks.pageScrollsSideways, false, `${where}: the chat page scrolls sideways`);
        assert.deepEqual(looks.sideways, [], `${where}: these scroll sideways`);
        assert.ok(looks.gear && looks.gear.width > 0 && looks.gear.right <= looks.width + 0.5 && looks.gear.left >= 0, `${where}: ⚙ is off screen: ${JSON.stringify(looks.gear)} in ${looks.width} px`);
        const minimum = theme.bodyClass.startsWith('hc') ? 7 : 4.5;
        const poor = looks.runs.filter((run) => run.ratio < minimum).map((run) => `${JSON.stringify(run.text)} ${run.color}: ${run.ratio.toFixed(2)}`);
        assert.deepEqual(poor, [], `${where}: code text below ${minimum}:1`);
      }
      if (originalWidth) await workbench.setSideBarWidth(Math.round(originalWidth));
    });
  }

  it('goes back to the theme the run started with', async () => {
    await scenario.workbench.setColorTheme(startTheme);
  });
});
