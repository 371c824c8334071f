// `ksm` sets two V8 flags for a short run on Node 20 (src/cli/environment.ts,
// tuneV8ForShortRuns; the gain is measured by bench/sync-small-files.ts). V8 prints
// "unrecognized flag" on stderr for a flag it does not know and ignores it, so a typo or
// a Node that dropped one would show only as noise on every run: checked here against the
// Node that runs ksm (CLI_NODE), and the built command line must start with nothing on stderr. That the
// built `ksm` really runs with them is seen from outside: on Node 20 its first request no
// longer has a background thread compile undici's parser with TurboFan (read from /proc).
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SHORT_RUN_V8_FLAGS, tuneV8ForShortRuns } from '../../src/cli/environment';
import { parseProcStat } from '../../bench/support/processCpu';
import { freshVolume, startFixture } from '../volumes/volumesEmulator';
import { CLI_NODE, LAUNCHER } from './runKsm';

const run = promisify(execFile);

/** The V8 of the Node that runs `ksm` here (CLI_NODE), which is what tuneV8ForShortRuns reads. */
const cliV8 = execFileSync(CLI_NODE, ['-p', 'process.versions.v8'], { encoding: 'utf8' }).trim();

/** What V8 says on stderr when the flag is set from inside a fresh Node process. */
async function stderrOfSetting(flag: string): Promise<string> {
  const { stderr } = await run(CLI_NODE, ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag)})`]);
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
    const flags = tuneV8ForShortRuns(cliV8, () => undefined);
    if (Number.parseInt(cliV8, 10) <= 11) assert.deepEqual(flags, SHORT_RUN_V8_FLAGS);
    for (const flag of flags) assert.equal(await stderrOfSetting(flag), '', flag);
  });

  it('the built `ksm` starts with nothing on stderr (an unknown flag would print there)', async () => {
    const { stdout, stderr } = await run(CLI_NODE, [LAUNCHER, '--version']);
    assert.match(stdout, /^\d+\.\d+\.\d+/);
    assert.equal(stderr, '');
  });

  it("the built `ksm` runs with them: its first request has no background thread compile undici's parser (the same request without them does)", async function () {
    if (Number.parseInt(cliV8, 10) > 11 || !existsSync('/proc/self/task')) this.skip(); // nothing is set there, or no /proc to read threads from
    const fx = await startFixture();
    try {
      // Preloaded into the child: at exit, the /proc stat line of every thread but the main one, read here by the benches' own parser.
      const preload = join(fx.workDir, 'thread-stats.cjs');
      await writeFile(
        preload,
        `const fs = require('node:fs');
process.on('exit', () => {
  for (const tid of fs.readdirSync('/proc/self/task'))
    if (Number(tid) !== process.pid) fs.writeSync(2, 'thread stat: ' + fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').trim() + '\\n');
});
`,
      );
      /** The most CPU (user + system, in ms: not wall time, so the same on a busy machine) any background thread used. */
      const busiest = (stderr: string) => {
        const used = [...stderr.matchAll(/^thread stat: (.*)$/gm)].map((m) => parseProcStat(m[1]).ownMs);
        assert.ok(used.length > 0, `no thread was read (Node always runs V8's worker threads): ${stderr}`);
        return Math.max(...used);
      };
      const env = { PATH: process.env.PATH, KSM_BASE_URL: fx.emulator.url, KSM_API_KEY: fx.emulator.apiKey };
      // Without the flags, one request through undici: V8 11 compiles its WebAssembly parser with TurboFan in the background (~0.1 s here).
      const plain = await run(CLI_NODE, ['-r', preload, '-e', `require('undici').request(${JSON.stringify(fx.emulator.url + '/')}).then((r) => r.body.dump())`], { env });
      assert.ok(busiest(plain.stderr) >= 50, `without the flags the busiest background thread used ${busiest(plain.stderr)} ms (the check could not see the compile)`);
      const tuned = await run(CLI_NODE, ['-r', preload, LAUNCHER, 'ls', freshVolume('v8-tuning')], { env }).catch((error: { stderr?: string }) => ({
        stderr: error.stderr ?? '',
      }));
      assert.ok(busiest(tuned.stderr) < 50, `ksm's busiest background thread used ${busiest(tuned.stderr)} ms: ${tuned.stderr}`);
    } finally {
      await fx.close();
    }
  });
});
