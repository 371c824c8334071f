// `ksm` sets two V8 flags for a short run on Node 20 (src/cli/environment.ts,
// tuneV8ForShortRuns; the gain is measured by bench/sync-small-files.ts). V8 prints
// "unrecognized flag" on stderr for a flag it does not know and ignores it, so a typo or
// a Node that dropped one would show only as noise on every run: checked here against the
// running Node, and the built command line must start with nothing on stderr.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { SHORT_RUN_V8_FLAGS, tuneV8ForShortRuns } from '../../src/cli/environment';

const run = promisify(execFile);

/** What V8 says on stderr when the flag is set from inside a fresh Node process. */
async function stderrOfSetting(flag: string): Promise<string> {
  const { stderr } = await run(process.execPath, ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`]);
  return stderr;
}

describe('ksm tunes V8 for a short run (tuneV8ForShortRuns)', function () {
  this.timeout(60_000);

  it("sets the short-run flags on Node 20's V8 (11.x), in order", () => {
    const set: string[] = [];
    const returned = tuneV8ForShortRuns('11.3.244.8-node.38', (flag) => set.push(flag));
    assert.deepEqual(set, ['--liftoff-only', '--interrupt-budget=1081344']);
    assert.deepEqual(returned, set);
  });

  it('sets nothing on newer V8 (Node 22: 12.4, Node 24: 13.6), which tiers up cheaply and has no --interrupt-budget, nor on a version it cannot read', () => {
    for (const version of ['12.4.254.21-node.33', '13.6.233.10-node.31', 'not-a-version', '']) {
      const set: string[] = [];
      assert.deepEqual(
        tuneV8ForShortRuns(version, (flag) => set.push(flag)),
        [],
      );
      assert.deepEqual(set, [], version);
    }
  });

  it('every flag it sets on this Node is one this V8 accepts (the check itself catches an unknown flag)', async () => {
    assert.match(await stderrOfSetting('--no-such-v8-flag-for-ksm'), /unrecognized flag/);
    const flags = tuneV8ForShortRuns(process.versions.v8, () => undefined);
    if (Number.parseInt(process.versions.v8, 10) <= 11) assert.deepEqual(flags, SHORT_RUN_V8_FLAGS);
    for (const flag of flags) assert.equal(await stderrOfSetting(flag), '', flag);
  });

  it('the built `ksm` sets them and starts with nothing on stderr', async () => {
    const { stdout, stderr } = await run(process.execPath, [resolve('bin/ksm.js'), '--version']);
    assert.match(stdout, /^\d+\.\d+\.\d+/);
    assert.equal(stderr, '');
  });
});
