// The dispatcher for real networks, tested for real on loopback: an HTTP CONNECT proxy that
// counts its tunnels (explicit proxy and HTTPS_PROXY/HTTP_PROXY with NO_PROXY), a
// self-signed HTTPS server (CA bundle, strictSSL), and bad CA files.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { KsmClient } from '../../src/api/client';
import { ConfigurationError, NetworkError } from '../../src/api/errors';
import { createDispatcher } from '../../src/api/network';
import { useEmulator } from './harness';
import { startConnectProxy, startSelfSignedServer, type CountingProxy } from './tlsAndProxy';

describe('api: network dispatcher (proxies and certificates)', () => {
  const h = useEmulator();
  let proxy: CountingProxy;
  const dispatchers: Dispatcher[] = [];
  const clientWith = (dispatcher: Dispatcher, baseUrl = h.emulator.url) => {
    dispatchers.push(dispatcher);
    return new KsmClient({ baseUrl, apiKey: async () => h.emulator.apiKey, dispatcher, retry: { retries: 0 } });
  };
  const personal = () => `{${h.emulator.userId}}`;

  beforeEach(async () => {
    proxy = await startConnectProxy();
  });
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
    await proxy.close();
  });

  it('tunnels through an explicit proxy (VS Code http.proxy)', async () => {
    const page = await clientWith(createDispatcher({ proxyUrl: proxy.url, env: {} })).listFiles({ volume: personal() });
    assert.equal(page.total, 0);
    assert.deepEqual(proxy.tunnels, [new URL(h.emulator.url).host]);
  });

  it("goes direct for a host on VS Code's http.noProxy list even with an explicit proxy", async () => {
    await clientWith(createDispatcher({ proxyUrl: proxy.url, noProxy: ['127.0.0.1'], env: {} })).listFiles({ volume: personal() });
    assert.equal(proxy.tunnels.length, 0);
    await clientWith(createDispatcher({ proxyUrl: proxy.url, noProxy: ['other.example.com'], env: {} })).listFiles({ volume: personal() });
    assert.equal(proxy.tunnels.length, 1, 'hosts not on the list still go through the proxy');
  });

  it('tunnels through HTTP_PROXY from the environment', async () => {
    await clientWith(createDispatcher({ env: { HTTP_PROXY: proxy.url } })).listFiles({ volume: personal() });
    assert.equal(proxy.tunnels.length, 1);
  });

  it('goes direct for a host in NO_PROXY', async () => {
    await clientWith(createDispatcher({ env: { HTTP_PROXY: proxy.url, NO_PROXY: 'localhost,127.0.0.1' } })).listFiles({ volume: personal() });
    assert.equal(proxy.tunnels.length, 0);
  });

  it('goes direct when neither the setting nor the given environment names a proxy', async () => {
    await clientWith(createDispatcher({ env: {} })).listFiles({ volume: personal() });
    assert.equal(proxy.tunnels.length, 0);
  });

  it('reports an unreachable proxy as NetworkError', async () => {
    const deadProxy = 'http://127.0.0.1:9';
    await assert.rejects(clientWith(createDispatcher({ proxyUrl: deadProxy, env: {} })).listFiles({ volume: personal() }), NetworkError);
  });

  it('refuses a malformed proxy URL with ConfigurationError', () => {
    assert.throws(
      () => createDispatcher({ proxyUrl: 'not a url', env: {} }),
      (e: unknown) => e instanceof ConfigurationError && /http\.proxy/.test(e.message),
    );
  });

  it('names an unreadable CA bundle file, and one without certificates', () => {
    const missing = join(h.dir, 'missing.pem');
    assert.throws(
      () => createDispatcher({ caBundlePath: missing, env: {} }),
      (e: unknown) => e instanceof ConfigurationError && e.message.includes(missing) && /ENOENT/.test(e.message),
    );
    const notPem = h.file('not.pem', 'hello');
    assert.throws(
      () => createDispatcher({ caBundlePath: notPem, env: {} }),
      (e: unknown) => e instanceof ConfigurationError && e.message.includes(notPem),
    );
  });

  describe('TLS with a self-signed certificate', () => {
    let httpsUrl: string;
    let caPath: string;
    let closeHttps: () => Promise<void>;

    before(async function () {
      const server = await startSelfSignedServer(h.dir, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 200, message: 'OK', total: 0, infoz: [] }));
      });
      httpsUrl = server.url;
      caPath = server.caPath;
      closeHttps = server.close;
    });
    after(() => closeHttps());

    it('refuses an unknown certificate by default', async () => {
      const error = await clientWith(createDispatcher({ env: {} }), httpsUrl)
        .listFiles({ volume: 'docs' })
        .catch((e) => e);
      assert.ok(error instanceof NetworkError, String(error));
      assert.match(error.message, /SELF_SIGNED|self[- ]signed/i);
    });

    it('trusts it when its CA is in ksm.network.caBundle (Node defaults kept)', async () => {
      const page = await clientWith(createDispatcher({ caBundlePath: caPath, env: {} }), httpsUrl).listFiles({ volume: 'docs' });
      assert.equal(page.total, 0);
    });

    it('trusts it through a proxy tunnel too', async () => {
      await clientWith(createDispatcher({ caBundlePath: caPath, proxyUrl: proxy.url, env: {} }), httpsUrl).listFiles({ volume: 'docs' });
      assert.equal(proxy.tunnels.length, 1);
    });

    it('accepts it with http.proxyStrictSSL off', async () => {
      const page = await clientWith(createDispatcher({ strictSSL: false, env: {} }), httpsUrl).listFiles({ volume: 'docs' });
      assert.equal(page.total, 0);
    });

    it('uses HTTPS_PROXY for an https base URL', async () => {
      await clientWith(createDispatcher({ caBundlePath: caPath, env: { HTTPS_PROXY: proxy.url } }), httpsUrl).listFiles({ volume: 'docs' });
      assert.equal(proxy.tunnels.length, 1);
    });
  });
});
