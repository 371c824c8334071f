// scripts/provision.sh is the first stage of `npm test`: on a machine that lacks a Debian
// package it must install it (root with apt-get) or stop at once with the exact command.
// A fake apt-get first on PATH records what the script asks of apt, so these tests never
// touch the machine's packages; the missing package is a name no machine has.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MISSING = 'ksm-provision-test-no-such-package';
const isRoot = process.getuid?.() === 0;

describe('scripts/provision.sh', () => {
  let dir: string;
  let aptLog: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-provision-'));
    aptLog = join(dir, 'apt-calls');
    // Succeeds without installing anything, like an apt that found nothing to do.
    writeFileSync(join(dir, 'apt-get'), `#!/bin/sh\necho "$*" >> '${aptLog}'\nexit 0\n`);
    chmodSync(join(dir, 'apt-get'), 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function provision(...args: string[]) {
    const result = spawnSync('bash', ['scripts/provision.sh', ...args], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}:${process.env.PATH}`, KSM_PROVISION_EXTRA_PACKAGES: MISSING },
    });
    const aptCalls = existsSync(aptLog) ? readFileSync(aptLog, 'utf8').trim().split('\n') : [];
    return { status: result.status, stderr: result.stderr, aptCalls };
  }

  it('--check names a missing package with the exact command to run, and never calls apt', () => {
    const { status, stderr, aptCalls } = provision('--check');
    assert.equal(status, 1, stderr);
    assert.match(stderr, new RegExp(`missing: .*${MISSING} \\(not installed\\)`));
    assert.ok(stderr.includes(`apt-get update && `), stderr);
    // Other packages may be missing too (`npx mocha` on a machine `npm test` has not provisioned yet).
    assert.match(stderr, new RegExp(`apt-get install -y --no-install-recommends ([^ \\n]+ )*${MISSING}\\n`));
    assert.deepEqual(aptCalls, []);
  });

  it(
    isRoot
      ? 'as root: runs apt-get update, then installs exactly the missing packages, and fails when they are still missing after'
      : 'not root: stops at once with the command to run as root, without calling apt',
    () => {
      const { status, stderr, aptCalls } = provision();
      assert.equal(status, 1, stderr);
      if (isRoot) {
        assert.equal(aptCalls.length, 2, aptCalls.join('\n'));
        assert.match(aptCalls[0], /(^| )update( |$)/);
        assert.match(aptCalls[1], new RegExp(`install -y .*--no-install-recommends ([^ ]+ )*${MISSING}$`));
        assert.match(stderr, new RegExp(`still missing after apt-get install: .*${MISSING}`));
      } else {
        assert.deepEqual(aptCalls, []);
        assert.match(stderr, new RegExp(`apt-get install -y --no-install-recommends ([^ \\n]+ )*${MISSING}`));
      }
    },
  );
});
