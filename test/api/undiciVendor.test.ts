// The built dist/vendor/undici.js comes from scripts/undici-vendor.mjs (the parts of undici
// src/ uses, not its index), while the other API tests run the sources against undici itself.
// So this builds that entry as esbuild.mjs does and sends real requests through it to the
// emulator: `request` with and without a dispatcher (path, query, default method, undici's
// own argument checks), and the three agents src/api/network.ts makes (direct, an explicit
// proxy, the environment's proxy), through a CONNECT proxy that counts its tunnels.
import { strict as assert } from 'node:assert';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import type * as Undici from 'undici';
import { useEmulator } from './harness';
import { startConnectProxy, type CountingProxy } from './tlsAndProxy';

type Vendor = Pick<typeof Undici, 'request' | 'Agent' | 'ProxyAgent' | 'EnvHttpProxyAgent'>;

describe('api: the undici vendor file (scripts/undici-vendor.mjs) over real HTTP', function () {
  this.timeout(60_000);
  const h = useEmulator();
  let vendor: Vendor;
  let proxy: CountingProxy;
  const dispatchers: Undici.Dispatcher[] = [];

  before(async () => {
    const outfile = join(h.dir, 'vendor', 'undici.js');
    await esbuild.build({ entryPoints: [resolve(__dirname, '../../scripts/undici-vendor.mjs')], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'warning' });
    vendor = createRequire(__filename)(outfile) as Vendor;
  });
  beforeEach(async () => {
    proxy = await startConnectProxy();
  });
  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
    await proxy.close();
  });

  /** A page of the personal volume's files (GET with a JSON body, as src/api/client.ts lists). */
  const listing = async (dispatcher?: Undici.Dispatcher) => {
    if (dispatcher) dispatchers.push(dispatcher);
    const response = await vendor.request(`${h.emulator.url}/ksm/rag/v5/files?ignored=1`, {
      method: 'GET',
      headers: { authorization: `Bearer ${h.emulator.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ volume: `{${h.emulator.userId}}`, offset: 0, limit: 1 }),
      ...(dispatcher ? { dispatcher } : {}),
    });
    const body = (await response.body.json()) as { total?: number };
    return { status: response.statusCode, body };
  };

  it('exports what src/ imports from undici at run time, and nothing it would not need', () => {
    assert.deepEqual(Object.keys(vendor).sort(), ['Agent', 'EnvHttpProxyAgent', 'ProxyAgent', 'request']);
  });

  it('sends a request with the global dispatcher and with an Agent', async () => {
    assert.deepEqual(await listing(), { status: 200, body: (await listing(new vendor.Agent())).body });
    const answer = await listing(new vendor.Agent({ connections: 2 }));
    assert.equal(answer.status, 200);
    assert.equal(answer.body.total, 0);
    assert.equal(proxy.tunnels.length, 0, 'direct: no tunnel');
  });

  it('takes `path` apart from an origin, GET by default, and refuses what undici refuses (bad url, a url with a path beside `path`, opts.agent)', async () => {
    const agent = new vendor.Agent();
    dispatchers.push(agent);
    // undici's typings leave `path` out of request's options; its code takes it (as undici's own index does).
    const response = await vendor.request(h.emulator.url, { path: '_emulator/stats', dispatcher: agent } as never);
    assert.equal(response.statusCode, 200, 'the path given (a leading / added), by GET');
    assert.equal(typeof (await response.body.json()), 'object');
    assert.throws(() => vendor.request('' as never), /invalid url/);
    assert.throws(() => vendor.request(`${h.emulator.url}/a/path`, { path: '/other' } as never), /invalid url/);
    assert.throws(() => vendor.request(h.emulator.url, { agent: {} } as never), /opts\.agent/);
  });

  it('tunnels through an explicit ProxyAgent and through EnvHttpProxyAgent (HTTP_PROXY), direct for NO_PROXY', async () => {
    const host = new URL(h.emulator.url).host;
    assert.equal((await listing(new vendor.ProxyAgent(proxy.url))).status, 200);
    assert.deepEqual(proxy.tunnels, [host]);
    assert.equal((await listing(new vendor.EnvHttpProxyAgent({ httpProxy: proxy.url, noProxy: '' }))).status, 200);
    assert.deepEqual(proxy.tunnels, [host, host]);
    assert.equal((await listing(new vendor.EnvHttpProxyAgent({ httpProxy: proxy.url, noProxy: '127.0.0.1' }))).status, 200);
    assert.equal(proxy.tunnels.length, 2, 'NO_PROXY: direct');
  });
});
