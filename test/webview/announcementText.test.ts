// What a screen reader is told about an answer that is not on screen comes from its Markdown
// source (answerTextOfMarkdown). The answer is a model's text, so a prompt can shape it: the
// marks are taken off in one pass over it, whatever it holds.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';

// Loaded by path: the module also reads rendered DOM elements, and the main type check has no
// DOM library (src/webview/tsconfig.json checks the module itself).
type AnswerTextOfMarkdown = (markdown: string) => { all: string; prose: string };

describe('webview announcements: the text of an answer from its Markdown', () => {
  let answerTextOfMarkdown: AnswerTextOfMarkdown;
  before(async () => {
    ({ answerTextOfMarkdown } = (await import(join(__dirname, '../../src/webview/announcement.ts'))) as { answerTextOfMarkdown: AnswerTextOfMarkdown });
  });

  it('reads the first line of prose without its marks, and drops fence lines from the whole text', () => {
    const answer = answerTextOfMarkdown('## See [the docs](https://example.com/a) and ![a chart](c.png), **now**\n\n```js\ncode()\n```\n  ~~~\n');
    assert.equal(answer.prose, 'See the docs and a chart, now');
    assert.equal(answer.all, '## See [the docs](https://example.com/a) and ![a chart](c.png), **now**\n\n\ncode()\n\n\n');
    assert.equal(answerTextOfMarkdown('```\nonly code\n```').prose, '');
  });

  it('handles answers built to make the patterns re-read them (quadratic before): blank lines, unclosed brackets', () => {
    // Each took hours on the old patterns (`^\s*` under the m flag re-read every following blank
    // line from each line start; `\[[^\]]*` read to the end from every '[').
    const blankLines = answerTextOfMarkdown(`Intro.\n${' \n'.repeat(500_000)}\`\`\`\ncode\n\`\`\``);
    assert.equal(blankLines.prose, 'Intro.');
    assert.ok(!blankLines.all.includes('```'));
    assert.equal(answerTextOfMarkdown('['.repeat(1_000_000)).prose.length, 1_000_000);
    assert.equal(answerTextOfMarkdown(`${'[a]('.repeat(250_000)}x`).prose.length, 1_000_001);
  });
});
