// The chat must hold from a 170 px side bar to a full-width panel, and in a slot only ~180 px
// tall (issue 14, defects 2 and 3): header controls stay on screen, nothing scrolls
// sideways, the transcript is the only thing that scrolls vertically, opening ⚙ moves
// nothing, and the parameters popover fits the view with Apply on screen. Screenshots of
// each size are kept under test-results/webview/.
import { strict as assert } from 'node:assert';
import { mkdirSync } from 'node:fs';
import { assistantTurn, conversation, init, userTurn } from './support/conversations';
import { APPLY_THEME_IN_PAGE, DARK_MODERN } from './support/vscodeThemes';
import { useWebviewSuite } from './support/suite';

const SCREENSHOTS = 'test-results/webview';

const SIZES = [
  { width: 170, height: 600 },
  { width: 300, height: 600 },
  { width: 800, height: 600 },
  // The chat sharing the side bar with Volumes: a slot about 180 px tall.
  { width: 300, height: 180 },
  { width: 170, height: 180 },
];

const WIDE_ANSWER = [
  'A long unbroken path: /workspace/projects/ksm-assistant/src/webview/parametersPopover.ts and https://example.com/a/very/long/address/that/does/not/break/anywhere/at/all',
  '',
  '```ts',
  'const aVeryLongLineOfCode = someFunction(withArguments, thatGoOn, andOn, andOn, untilTheyAreFarWiderThanAnySideBar);',
  '```',
  '',
  '| column one | column two | column three | column four | column five |',
  '| --- | --- | --- | --- | --- |',
  '| value | another value | a third value | fourth | fifth |',
].join('\n');

/** Geometry the assertions need, measured in the page. Plain JS for the page. */
const MEASURE = `() => {
  const rect = (node) => { const r = node.getBoundingClientRect(); return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height }; };
  const scrolling = [];
  for (const node of document.querySelectorAll('*')) {
    const style = getComputedStyle(node);
    // Code blocks and tables scroll sideways inside themselves on purpose, like the editor;
    // nothing else may.
    const sideways = /auto|scroll/.test(style.overflowX) && !node.matches('.code-block pre, .table-scroll');
    const vertical = /auto|scroll/.test(style.overflowY);
    if (!sideways && !vertical) continue;
    if (node.getClientRects().length === 0) continue;
    scrolling.push({
      name: node.className || node.localName,
      horizontalOverflow: sideways && node.scrollWidth > node.clientWidth + 1 ? node.scrollWidth - node.clientWidth : 0,
      scrollsVertically: vertical && node.scrollHeight > node.clientHeight + 1,
    });
  }
  const root = document.scrollingElement;
  const controls = [...document.querySelectorAll('.header button, .header select, .header input')]
    .filter((node) => node.getClientRects().length > 0 && !node.closest('#parameters-panel'))
    .map((node) => ({ label: node.getAttribute('aria-label') || node.textContent, ...rect(node) }));
  const panel = document.getElementById('parameters-panel');
  const apply = panel && [...panel.querySelectorAll('button')].find((node) => node.textContent === 'Apply');
  let applyOnTop = false;
  if (apply && !panel.hidden) {
    const r = apply.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    applyOnTop = hit === apply || apply.contains(hit);
  }
  return {
    viewport: { width: innerWidth, height: innerHeight },
    document: { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, scrollHeight: root.scrollHeight, clientHeight: root.clientHeight },
    scrolling,
    controls,
    header: rect(document.querySelector('.header')),
    transcript: rect(document.querySelector('.transcript')),
    composer: rect(document.querySelector('.composer')),
    panel: panel && !panel.hidden ? { ...rect(panel), scrollWidth: panel.scrollWidth, clientWidth: panel.clientWidth } : null,
    apply: apply && !panel.hidden ? rect(apply) : null,
    applyOnTop,
  };
}`;

interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
interface Measured {
  viewport: { width: number; height: number };
  document: { scrollWidth: number; clientWidth: number; scrollHeight: number; clientHeight: number };
  scrolling: { name: string; horizontalOverflow: number; scrollsVertically: boolean }[];
  controls: (Rect & { label: string })[];
  header: Rect;
  transcript: Rect;
  composer: Rect;
  panel: (Rect & { scrollWidth: number; clientWidth: number }) | null;
  apply: Rect | null;
  applyOnTop: boolean;
}

function inside(rect: Rect, viewport: { width: number; height: number }): boolean {
  return rect.left >= -0.5 && rect.top >= -0.5 && rect.right <= viewport.width + 0.5 && rect.bottom <= viewport.height + 0.5;
}

describe('webview layout from 170 px to full width', function () {
  const suite = useWebviewSuite();

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  for (const { width, height } of SIZES) {
    it(`${width}×${height}: header on screen, no sideways or double scrolling, ⚙ fits with Apply on screen`, async () => {
      const webview = await suite.openPage();
      try {
        await webview.page.setViewportSize({ width, height });
        await webview.page.evaluate(`(${APPLY_THEME_IN_PAGE})(${JSON.stringify(DARK_MODERN)})`);
        const turns = [userTurn('u1', 'Show me something wide'), assistantTurn('a1', WIDE_ANSWER), userTurn('u2', 'again'), assistantTurn('a2', WIDE_ANSWER)];
        // A reasoning model: the popover has its largest form.
        await webview.hostPost(init(conversation(turns, { model: 'ksm-reasoner', title: 'A conversation with a rather long title that cannot fit' })));
        await webview.settle();
        const name = `${width}x${height}`;
        await webview.page.screenshot({ path: `${SCREENSHOTS}/layout-${name}.png` });
        const closed = (await webview.page.evaluate(`(${MEASURE})()`)) as Measured;
        assertLayout(closed, 'closed');

        await webview.page.getByLabel('Parameters', { exact: true }).click();
        await webview.settle();
        await webview.page.screenshot({ path: `${SCREENSHOTS}/layout-${name}-parameters.png` });
        const open = (await webview.page.evaluate(`(${MEASURE})()`)) as Measured;
        assertLayout(open, 'with ⚙ open');
        assert.deepEqual([open.header, open.transcript, open.composer], [closed.header, closed.transcript, closed.composer], 'opening ⚙ moves nothing');
        assert.ok(open.panel, 'the popover is open');
        assert.ok(inside(open.panel, open.viewport), `the popover fits the view: ${JSON.stringify(open.panel)} in ${JSON.stringify(open.viewport)}`);
        assert.ok(open.panel.scrollWidth <= open.panel.clientWidth, 'the popover does not scroll sideways');
        assert.ok(open.apply && inside(open.apply, open.viewport), `Apply is on screen without scrolling: ${JSON.stringify(open.apply)}`);
        assert.ok(open.applyOnTop, 'nothing covers Apply');

        // Apply works from there: a changed value is posted.
        await webview.page.locator('#parameter-temperature').fill('0.5');
        await webview.clearPosted();
        await webview.page.getByRole('button', { name: 'Apply', exact: true }).click();
        const posted = await webview.posted();
        assert.equal(posted.length, 1);
        assert.equal(posted[0].type === 'setParameters' && posted[0].parameters.temperature, 0.5);
      } finally {
        assert.deepEqual(webview.pageErrors, []);
        await webview.close();
      }
    });
  }
});

describe('webview source chips at side-bar widths', function () {
  const suite = useWebviewSuite();
  const SOURCES = [
    { fileId: 'f1', filename: 'guide.md', volume: 'docs', volumeLabel: 'docs', markers: [1] },
    { fileId: 'f2', filename: 'lamps-team-guide-for-the-reading-room.md', volume: 'team-lamps', volumeLabel: 'team-lamps', markers: [2, 3] },
    { fileId: 'f3', filename: 'notes.txt', volume: '{dev}', volumeLabel: 'My files', markers: [10] },
  ];

  for (const width of [170, 240, 300, 420]) {
    it(`${width} px: a chip's [n] and its closing bracket stay on one line with the chip (issue 26, rough edge 7)`, async () => {
      const webview = await suite.openPage();
      try {
        await webview.page.setViewportSize({ width, height: 600 });
        await webview.page.evaluate(`(${APPLY_THEME_IN_PAGE})(${JSON.stringify(DARK_MODERN)})`);
        await webview.hostPost(init(conversation([userTurn('u1', 'q'), assistantTurn('a1', 'See [1], [2] and [10].', { citations: SOURCES })])));
        await webview.settle();
        await webview.page.screenshot({ path: `${SCREENSHOTS}/sources-${width}.png` });
        const chips = (await webview.page.evaluate(`(() => [...document.querySelectorAll('.citation')].map((chip) => {
          const number = chip.querySelector('.citation-number');
          // Rows of text: rectangles of the text itself, those within 4 px of each other being one row.
          const rowsOf = (node) => {
            const range = document.createRange();
            range.selectNodeContents(node);
            const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top).sort((a, b) => a - b);
            return tops.filter((top, i) => i === 0 || top - tops[i - 1] > 4).length;
          };
          return { text: chip.textContent, numberLines: rowsOf(number), rows: rowsOf(chip), right: chip.getBoundingClientRect().right };
        }))()`)) as Array<{ text: string; numberLines: number; rows: number; right: number }>;
        assert.equal(chips.length, 3);
        for (const chip of chips) {
          assert.equal(chip.numberLines, 1, `${chip.text}: its [n] is on one line`);
          assert.equal(chip.rows, 1, `${chip.text}: the chip is one line (shortened with an ellipsis, not wrapped)`);
          assert.ok(chip.right <= width + 0.5, `${chip.text}: on screen`);
        }
      } finally {
        assert.deepEqual(webview.pageErrors, []);
        await webview.close();
      }
    });
  }
});

function assertLayout(measured: Measured, when: string): void {
  const { document, viewport } = measured;
  assert.ok(document.scrollWidth <= document.clientWidth, `${when}: the page does not scroll sideways (${document.scrollWidth} > ${document.clientWidth})`);
  assert.ok(document.scrollHeight <= document.clientHeight, `${when}: the page itself does not scroll (${document.scrollHeight} > ${document.clientHeight})`);
  assert.deepEqual(
    measured.scrolling.filter((node) => node.horizontalOverflow > 0),
    [],
    `${when}: no scroll container overflows sideways`,
  );
  const vertical = measured.scrolling.filter((node) => node.scrollsVertically).map((node) => node.name);
  assert.ok(vertical.length <= (measured.panel ? 2 : 1), `${when}: one vertical scroller (plus the open popover), got ${vertical.join(', ')}`);
  assert.ok(!vertical.length || vertical.includes('transcript'), `${when}: the transcript is what scrolls, got ${vertical.join(', ')}`);
  const off = measured.controls.filter((control) => !inside(control, viewport) || control.width < 16);
  assert.deepEqual(off, [], `${when}: every header control is on screen and usable`);
  assert.ok(
    measured.controls.some((control) => control.label === 'Parameters'),
    `${when}: ⚙ is there`,
  );
  assert.ok(measured.transcript.height >= 24, `${when}: the transcript keeps room to read (${measured.transcript.height} px)`);
  assert.ok(inside(measured.composer, viewport), `${when}: the composer is on screen`);
}
