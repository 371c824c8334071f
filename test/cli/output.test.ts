// The CLI's output frame (src/cli/output.ts) on fake streams: a human line cannot carry a
// terminal escape whatever a caller forgot to escape, and the progress line on a terminal
// says nothing it does not know.
import { strict as assert } from 'node:assert';
import { createOutput } from '../../src/cli/output';

function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const s = { isTTY, text: '', write: (chunk: string) => ((s.text += chunk), true) };
  return s as unknown as NodeJS.WriteStream & { text: string };
}

describe('ksm output frame', () => {
  it('escapes control and bidi characters in every human line and notice, keeping tabs and line breaks', () => {
    const stdout = stream(false);
    const out = createOutput({ json: false, stdout, stderr: stream(false) });
    out.line('id\u001b[2J\tdone\u202e');
    out.notice('failed: \u009b31m\nsecond');
    assert.equal(stdout.text, 'id\\x1b[2J\tdone\\u202e\nfailed: \\x9b31m\nsecond\n');
  });

  it('a progress line with nothing counted yet shows its label, not "0/0 files (100%)"', () => {
    const stderr = stream(true);
    const out = createOutput({ json: false, stdout: stream(false), stderr });
    const bar = out.progress(1, 'Syncing docs');
    bar.update(0, 0);
    assert.ok(!stderr.text.includes('0/0'), JSON.stringify(stderr.text));
    assert.match(stderr.text, /Syncing docs…$/);
    bar.update(3, 3);
    assert.match(stderr.text, /Syncing docs: 3\/3 files \(100%\)$/);
    bar.stop();
  });
});
