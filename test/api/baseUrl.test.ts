// The service address check behind the settings-based client factory.
import { strict as assert } from 'node:assert';
import { checkBaseUrl } from '../../src/api/baseUrl';
import { ConfigurationError } from '../../src/api/errors';

describe('api base URL check', () => {
  it('refuses a missing, malformed or non-http address with a message naming the setting', () => {
    for (const raw of ['', '   ', 'not a url', 'ftp://ksm.example.com', 'https://user:pw@ksm.example.com']) {
      assert.throws(
        () => checkBaseUrl(raw),
        (e: unknown) => e instanceof ConfigurationError && e.message.includes('ksm.baseUrl'),
        raw,
      );
    }
  });

  it('drops trailing slashes', () => {
    assert.equal(checkBaseUrl(' https://ksm.example.com/api/// ').url, 'https://ksm.example.com/api');
  });

  it('flags plain http only when it leaves this machine', () => {
    assert.equal(checkBaseUrl('http://ksm.example.com').insecure, true);
    assert.equal(checkBaseUrl('http://10.0.0.5:8787').insecure, true);
    assert.equal(checkBaseUrl('https://ksm.example.com').insecure, false);
    for (const local of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', 'http://127.1.2.3', 'http://emu.localhost']) {
      assert.equal(checkBaseUrl(local).insecure, false, local);
    }
  });
});
