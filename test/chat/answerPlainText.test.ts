import { strict as assert } from 'node:assert';
import { answerPlainText, lastAnswer, markdownToPlainText } from '../../src/chat/core/answerPlainText';
import type { Turn } from '../../src/chat/core/conversationModel';

const answer = (content: string, patch: Partial<Turn> = {}): Turn => ({ id: 't-000000000001', role: 'assistant', content, state: 'done', createdAt: 1, ...patch }) as Turn;

describe('an answer as plain text (KSM: Read Last Answer)', () => {
  it('drops the Markdown marks and keeps the words, list numbers, link addresses and code', () => {
    const text = markdownToPlainText(
      [
        '## Plan',
        '',
        'Use **the client** with `retry` and see [the docs](https://example.com/docs) [1].',
        '',
        '1. one',
        '2. _two_',
        '',
        '- a',
        '  - nested',
        '',
        '> quoted',
        '',
        '```ts',
        'const x = 1;',
        '```',
        '',
        '| name | value |',
        '| --- | --- |',
        '| alpha | 1 |',
      ].join('\n'),
    );
    assert.equal(
      text,
      [
        'Plan',
        'Use the client with retry and see the docs (https://example.com/docs) [1].',
        '1. one',
        '2. two',
        '- a',
        '  - nested',
        '> quoted',
        'Code (ts):\nconst x = 1;\nEnd of code.',
        'name | value',
        'alpha | 1',
      ].join('\n\n'),
    );
    assert.doesNotMatch(text, /\*\*|`|##|\]\(/);
  });

  it('adds how the answer ended and its sources; raw HTML stays text', () => {
    const text = answerPlainText(
      answer('Volumes hold <b>files</b> [1].', {
        state: 'stopped',
        citations: [{ fileId: 'f1', filename: 'guide.md', volume: 'v-docs', volumeLabel: 'docs', markers: [1] }],
      } as Partial<Turn>),
    );
    assert.equal(text, 'Volumes hold <b>files</b> [1].\n\n(Stopped before the end.)\n\nSources:\n[1] guide.md (volume docs)\n');
  });

  it('the last answer is the last assistant turn with text (an empty streaming one is skipped)', () => {
    const turns = [answer('first'), { id: 't-000000000002', role: 'user', content: 'q', createdAt: 2 } as Turn, answer('', { id: 't-000000000003', state: 'streaming' })];
    assert.equal(lastAnswer({ turns })?.content, 'first');
    assert.equal(lastAnswer({ turns: [] }), undefined);
  });
});
