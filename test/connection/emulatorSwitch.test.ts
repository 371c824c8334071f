// Connect to Local Emulator and Restore Previous Connection (src/connection/core/
// previousConnection.ts): the stored key never reaches the emulator's address, nothing is
// written when the user declines, a second run keeps the user's own connection, and restore
// puts address and key back. Over real HTTP: every write is followed by a request built
// from the store as it is then (as the Volumes tree refreshes on a settings change), to a
// server that records which key arrived at the emulator's address.
import { strict as assert } from 'node:assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KsmClient } from '../../src/api/client';
import { parsePreviousConnection, restorePreviousConnection, switchToEmulator, type ConnectionStore } from '../../src/connection/core/previousConnection';

const PRODUCTION_KEY = 'sk-production-0123456789abcdef';
const EMULATOR_KEY = 'ksm-emulator-key';

describe('connection: switching to the local emulator and back', () => {
  let server: Server;
  let emulatorUrl: string;
  let keysSeen: string[];

  before(async () => {
    server = createServer((req, res) => {
      keysSeen.push(String(req.headers.authorization ?? ''));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ files: [], total: 0, limit: 1, offset: 0 }));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    emulatorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    keysSeen = [];
  });
  after(() => new Promise<void>((done) => server.close(() => done())));

  /** An in-memory store that, after every write, lists files with what is stored now when it points at the emulator. */
  function storeWith(initial: { baseUrl: string; apiKey?: string; previous?: string }) {
    const state = { ...initial };
    const writes: string[] = [];
    const probe = async () => {
      if (state.baseUrl !== emulatorUrl || !state.apiKey) return;
      const key = state.apiKey;
      await new KsmClient({ baseUrl: state.baseUrl, apiKey: async () => key, retry: { retries: 0 } }).listFiles({ volume: '{dev}', limit: 1 }).catch(() => undefined);
    };
    const store: ConnectionStore = {
      baseUrl: () => state.baseUrl,
      setBaseUrl: async (url) => {
        writes.push(`baseUrl=${url ?? ''}`);
        state.baseUrl = url ?? '';
        await probe();
      },
      apiKey: async () => state.apiKey,
      setApiKey: async (key) => {
        writes.push(`key=${key === PRODUCTION_KEY ? 'production' : (key ?? '')}`);
        state.apiKey = key;
        await probe();
      },
      previous: async () => state.previous,
      setPrevious: async (raw) => {
        writes.push(raw === undefined ? 'previous cleared' : 'previous kept');
        state.previous = raw;
      },
    };
    return { store, state, writes };
  }

  it('never sends the stored key to the emulator: the key is replaced before the address, then the check uses the emulator key', async () => {
    const { store, state, writes } = storeWith({ baseUrl: 'https://ksm.example.com', apiKey: PRODUCTION_KEY });
    let toldKept: unknown;
    const outcome = await switchToEmulator(store, { baseUrl: emulatorUrl, apiKey: EMULATOR_KEY }, async (kept) => {
      toldKept = kept;
      return true;
    });
    assert.equal(outcome, 'switched');
    assert.deepEqual(toldKept, { baseUrl: 'https://ksm.example.com', apiKey: PRODUCTION_KEY }, 'the question says what is kept');
    assert.deepEqual(writes, ['previous kept', 'key=ksm-emulator-key', `baseUrl=${emulatorUrl}`]);
    await new KsmClient({ baseUrl: state.baseUrl, apiKey: async () => state.apiKey!, retry: { retries: 0 } }).listFiles({ volume: '{dev}', limit: 1 });
    assert.ok(keysSeen.length >= 2, 'the emulator address was called');
    assert.ok(
      keysSeen.every((h) => !h.includes(PRODUCTION_KEY)),
      `the production key reached the emulator: ${keysSeen.join(', ')}`,
    );
    assert.deepEqual(parsePreviousConnection(state.previous), { baseUrl: 'https://ksm.example.com', apiKey: PRODUCTION_KEY });
  });

  it('writes nothing when the user declines', async () => {
    const { store, state, writes } = storeWith({ baseUrl: 'https://ksm.example.com', apiKey: PRODUCTION_KEY });
    assert.equal(await switchToEmulator(store, { baseUrl: emulatorUrl, apiKey: EMULATOR_KEY }, async () => false), 'declined');
    assert.deepEqual(writes, []);
    assert.equal(state.apiKey, PRODUCTION_KEY);
    assert.equal(keysSeen.length, 0);
  });

  it("a second run keeps the user's own connection, not the emulator's; restore puts the address back first, then the key, and forgets it", async () => {
    const { store, state, writes } = storeWith({ baseUrl: 'https://ksm.example.com', apiKey: PRODUCTION_KEY });
    await switchToEmulator(store, { baseUrl: emulatorUrl, apiKey: EMULATOR_KEY }, async () => true);
    assert.equal(await switchToEmulator(store, { baseUrl: emulatorUrl, apiKey: EMULATOR_KEY }, async () => assert.fail('not asked again')), 'already');
    writes.length = 0;
    keysSeen = [];
    const restored = await restorePreviousConnection(store);
    assert.deepEqual(restored, { baseUrl: 'https://ksm.example.com', apiKey: PRODUCTION_KEY });
    assert.deepEqual(writes, ['baseUrl=https://ksm.example.com', 'key=production', 'previous cleared']);
    assert.equal(state.apiKey, PRODUCTION_KEY);
    assert.ok(keysSeen.every((h) => !h.includes(PRODUCTION_KEY)));
    assert.equal(await restorePreviousConnection(store), undefined, 'nothing left to restore');
  });

  it('with nothing stored before, keeps nothing and restore has nothing to do; a damaged record is ignored', async () => {
    const { store, writes } = storeWith({ baseUrl: '' });
    await switchToEmulator(store, { baseUrl: emulatorUrl, apiKey: EMULATOR_KEY }, async (kept) => kept === undefined);
    assert.deepEqual(writes, ['key=ksm-emulator-key', `baseUrl=${emulatorUrl}`]);
    for (const raw of [undefined, '', 'not json', '{"baseUrl":1}', '{"baseUrl":"","apiKey":""}', 'null']) assert.equal(parsePreviousConnection(raw), undefined, String(raw));
  });
});
