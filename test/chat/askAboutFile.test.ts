// "Ask About File" decides by size: paste a small file, ask before pasting a large one
// (over 50 KB), refuse one that cannot fit in a single message; and what it pastes is the
// file name and a fence tagged with the editor's language.
import { strict as assert } from 'node:assert';
import { ASK_ANYWAY, LARGE_FILE_CHARS, MAX_PREFILL_CHARS, planAskAboutFile } from '../../src/chat/core/askAboutFile';
import { MAX_TEXT_CHARS } from '../../src/chat/core/conversationModel';

const linesOf = (chars: number): string => 'x'.repeat(79).concat('\n').repeat(Math.ceil(chars / 80)).slice(0, chars);

describe('chat: Ask About File by size', () => {
  it('pastes a small file as its name and a language-tagged fence, with nothing else', () => {
    const plan = planAskAboutFile('release.py', 'python', 'def ship():\n    return True\n');
    assert.deepEqual(plan, { kind: 'prefill', prefill: '`release.py`:\n\n```python\ndef ship():\n    return True\n```\n\n' });
  });

  it('pastes a file of exactly 50 KB without asking, and asks for one character more', () => {
    assert.equal(LARGE_FILE_CHARS, 50 * 1024);
    assert.equal(planAskAboutFile('a.txt', 'plaintext', linesOf(LARGE_FILE_CHARS)).kind, 'prefill');
    const plan = planAskAboutFile('big.log', 'log', linesOf(LARGE_FILE_CHARS + 1));
    assert.equal(plan.kind, 'confirm');
    if (plan.kind !== 'confirm') return;
    assert.equal(plan.confirmLabel, ASK_ANYWAY);
    assert.match(plan.message, /^big\.log is 50 KB\. Large files may exceed the model's context/);
    assert.ok(plan.prefill.startsWith('`big.log`:\n\n```log\n'), 'confirming pastes the same fenced file');
    assert.ok(plan.prefill.includes(linesOf(LARGE_FILE_CHARS + 1)), 'the whole file is pasted, not a cut');
  });

  it('refuses a file whose prefill would not leave room for a question under the message limit', () => {
    const largestPastable = linesOf(MAX_PREFILL_CHARS - '`a.ts`:\n\n```typescript\n\n```\n\n'.length);
    assert.equal(planAskAboutFile('a.ts', 'typescript', largestPastable).kind, 'confirm', 'fits: asked, not refused');
    const plan = planAskAboutFile('a.ts', 'typescript', `${largestPastable}y`);
    assert.equal(plan.kind, 'refuse');
    assert.ok(!('prefill' in plan), 'nothing is pasted');
    assert.match(plan.kind === 'refuse' ? plan.message : '', /^a\.ts is too large to paste into the chat \(over 100,000 characters\)\. .*Ask About Selection.*upload the file to a volume/);
    assert.ok(MAX_PREFILL_CHARS < MAX_TEXT_CHARS);
  });
});
