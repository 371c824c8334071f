// One error → fix table for every place that offers a fix (command errors, the chat's
// notification, the Volumes tree's error row): a missing key is fixed by setting the key,
// not by opening settings; a bad address or CA file opens our settings; other errors have
// no one-click fix.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { AuthenticationError, BadResponseError, ConfigurationError, NetworkError, NotFoundError, RateLimitedError, TimeoutError } from '../../src/api/errors';
import { checkBaseUrl } from '../../src/api/baseUrl';
import { NoApiKeyError } from '../../src/api/errors';
import { COMMAND } from '../../src/common/core/contributionIds';
import { describeError } from '../../src/cli/environment';
import { errorFromFailure } from '../../src/api/httpErrors';
import { errorFix, messageWithFix, NotConnectedError } from '../../src/common/core/errorFixes';

const thrown = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
};

describe('common: error → fix', () => {
  it('sets the API key for a refused or a missing key', () => {
    assert.equal(errorFix(new AuthenticationError('401', { status: 401 }))?.action.command, COMMAND.setApiKey);
    assert.equal(errorFix(new NoApiKeyError())?.action.command, COMMAND.setApiKey);
  });

  it('opens our settings for any other set-up problem', () => {
    for (const address of ['', 'not a url', 'ftp://x', 'https://user:pw@host']) {
      assert.equal(errorFix(thrown(() => checkBaseUrl(address)))?.action.command, COMMAND.openSettings, address);
    }
    assert.equal(errorFix(new ConfigurationError('The CA bundle could not be read.'))?.action.command, COMMAND.openSettings);
  });

  it('runs Check Connection for a connection that failed, timed out or reached something that is not the API', () => {
    for (const error of [new NetworkError('down'), new TimeoutError('slow'), new BadResponseError('html')]) {
      assert.equal(errorFix(error)?.action.command, COMMAND.checkConnection, String(error));
    }
  });

  it('a refused connection: the message names ECONNREFUSED once and says the fix (start the emulator, check the URL, Check Connection)', () => {
    const refused = new NetworkError('List files failed: nothing accepted the connection (connect ECONNREFUSED 127.0.0.1:8787).', { code: 'ECONNREFUSED' });
    const message = messageWithFix(refused);
    assert.equal(message.split('ECONNREFUSED').length, 2, message);
    assert.match(message, /Start the service \(the local emulator: npm run emulator\), check the address in 'ksm\.baseUrl', or run 'KSM: Check Connection'\./);
    assert.equal(errorFix(refused)?.action.command, COMMAND.checkConnection);
    // The ksm CLI says the same fix, in its own variable names.
    assert.match(describeError(refused), /ECONNREFUSED 127\.0\.0\.1:8787\)\. Start the service \(the local emulator: npm run emulator\), check the address in KSM_BASE_URL\.$/);
    // Other network failures keep their own wording (src/api already says what to check).
    assert.equal(messageWithFix(new NetworkError('down. Check the proxy.', { code: 'ENOTFOUND' })), 'down. Check the proxy.');
  });

  it('a timeout: the ksm CLI and MCP server name KSM_TIMEOUT_SECONDS, not the editor setting', () => {
    const timedOut = errorFromFailure(Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'Listing files', undefined, (text) => text);
    assert.match(timedOut.message, /raise 'ksm\.request\.timeoutSeconds'\.$/, 'the editor names its setting');
    assert.equal(describeError(timedOut), 'Listing files timed out (Headers Timeout Error). Check the connection, or raise KSM_TIMEOUT_SECONDS.');
  });

  it('not connected offers both ways to connect', () => {
    const fix = errorFix(new NotConnectedError());
    assert.deepEqual([fix?.action.command, ...(fix?.alternatives ?? []).map((a) => a.command)], [COMMAND.setApiKey, COMMAND.useLocalEmulator]);
  });

  it('offers no one-click fix where none exists', () => {
    for (const error of [new NotFoundError('gone', { status: 404 }), new RateLimitedError('slow', { status: 429 }), new Error('bug'), 'text']) {
      assert.equal(errorFix(error), undefined, String(error));
    }
  });

  it('names only commands package.json declares', () => {
    const declared = JSON.parse(readFileSync('package.json', 'utf8')).contributes.commands.map((c: { command: string }) => c.command);
    for (const error of [new AuthenticationError('x'), new NoApiKeyError(), new ConfigurationError('x'), new NetworkError('x')]) {
      assert.ok(declared.includes(errorFix(error)!.action.command));
    }
  });
});
