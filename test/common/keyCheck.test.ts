// Set API Key checks the key with one listing and says accepted / refused (with the fix) /
// could not check (with the reason): the outcome mapping, and the real listing against the
// emulator with a right key, a wrong key and nothing listening.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { AuthenticationError, ConfigurationError, NetworkError, NotFoundError, PermissionError, ServerError, TimeoutError } from '../../src/api/errors';
import { COMMAND } from '../../src/common/core/contributionIds';
import { checkApiKey, emulatorConnectReport, keyCheckOutcome, keyCheckVolume } from '../../src/common/core/keyCheck';

describe('common: the API key check', () => {
  it('maps the listing result to accepted, refused or could not check', () => {
    assert.equal(keyCheckOutcome(undefined, '{dev}').outcome, 'accepted');
    // The service answered after authenticating: the key passed.
    assert.equal(keyCheckOutcome(new NotFoundError('no such volume', { status: 404 }), 'v').outcome, 'accepted');
    const forbidden = keyCheckOutcome(new PermissionError('403', { status: 403 }), '{someone}');
    assert.equal(forbidden.outcome, 'accepted');
    assert.match(forbidden.message, /ksm\.userId/);
    const refused = keyCheckOutcome(new AuthenticationError('401', { status: 401 }), '{dev}');
    assert.equal(refused.outcome, 'refused');
    assert.match(refused.message, /refused this API key/);
    assert.equal(refused.outcome === 'refused' && refused.fix.command, COMMAND.setApiKey);
    for (const error of [new TimeoutError('List files timed out.'), new ServerError('HTTP 503', { status: 503 }), new ConfigurationError('No service address is set.'), new Error('boom')]) {
      const check = keyCheckOutcome(error, '{dev}');
      assert.equal(check.outcome, 'unchecked', String(error));
      assert.match(check.message, /could not be checked: /);
      assert.ok(check.message.includes(error.message.split('\n')[0]!), 'says the reason');
    }
  });

  it('Connect to Local Emulator says what happened: connected, refused key, or nothing answering (start it), never a guess', () => {
    const url = 'http://127.0.0.1:8787';
    const connected = emulatorConnectReport(keyCheckOutcome(undefined, '{dev}'), url);
    assert.equal(connected.level, 'info');
    assert.match(connected.message, /^Connected to the local emulator at http:\/\/127\.0\.0\.1:8787: it answered/);
    assert.doesNotMatch(connected.message, /npm run emulator/, 'no "start it" for an emulator that answers');
    const refused = emulatorConnectReport(keyCheckOutcome(new AuthenticationError('401', { status: 401 }), '{dev}'), url);
    assert.equal(refused.level, 'error');
    assert.equal(refused.action?.command, COMMAND.setApiKey);
    const down = emulatorConnectReport(
      keyCheckOutcome(new NetworkError('List files failed: nothing accepted the connection (connect ECONNREFUSED 127.0.0.1:8787).', { code: 'ECONNREFUSED' }), '{dev}'),
      url,
    );
    assert.equal(down.level, 'warning');
    assert.match(down.message, /nothing answers there\. Start it with "npm run emulator"/);
    assert.equal(down.action?.command, COMMAND.checkConnection);
    const slow = emulatorConnectReport(keyCheckOutcome(new TimeoutError('List files timed out.'), '{dev}'), url);
    assert.match(slow.message, /could not check it: List files timed out\./);
  });

  it('lists the personal volume when a user id is set, else a named volume', () => {
    assert.equal(keyCheckVolume('dev', ['docs']), '{dev}');
    assert.equal(keyCheckVolume('', ['docs']), 'docs');
    assert.equal(keyCheckVolume('', []), 'ksm-key-check');
  });

  describe('against the emulator', () => {
    let emulator: RunningEmulator;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ksm-keycheck-'));
      emulator = await startEmulator({ port: 0, dataDir: join(dir, 'data') });
    });
    after(async () => {
      await emulator?.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const client = (baseUrl: string, key: string) => new KsmClient({ baseUrl, apiKey: async () => key, retry: { retries: 0 } });

    it('says accepted for the right key and refused for a wrong one, never echoing the key', async () => {
      assert.equal((await checkApiKey(client(emulator.url, emulator.apiKey), '{dev}')).outcome, 'accepted');
      const wrong = 'sk-wrong-key-1234567890';
      const refused = await checkApiKey(client(emulator.url, wrong), '{dev}');
      assert.equal(refused.outcome, 'refused');
      assert.ok(!refused.message.includes(wrong));
    });

    it('says it could not check when nothing listens, naming ECONNREFUSED once and the fix', async () => {
      const check = await checkApiKey(client('http://127.0.0.1:9', 'k'), '{dev}');
      assert.equal(check.outcome, 'unchecked');
      assert.ok(check.outcome === 'unchecked' && check.nothingListens);
      assert.equal(check.message.split('ECONNREFUSED').length, 2, check.message);
      assert.match(check.message, /npm run emulator.*ksm\.baseUrl.*KSM: Check Connection/);
      assert.equal(check.outcome === 'unchecked' && check.fix?.command, COMMAND.checkConnection);
    });
  });
});
