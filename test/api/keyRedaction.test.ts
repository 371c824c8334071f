// The key never leaves the client's boundary, whatever the server echoes: a misconfigured
// upstream echoing the Authorization header into error bodies, stream errors, agent
// `error` events, unknown events and a redirect's Location. Keys with `" ' , \ / + & %` and
// a 3-character key, over real HTTP (emulator fault injection, or a raw server for shapes
// the emulator does not produce); the assertions cover errors, events and the log.
import { strict as assert } from 'node:assert';
import type { ServerResponse } from 'node:http';
import { KsmClient } from '../../src/api/client';
import type { AgentEvent } from '../../src/api/types';
import { drain, recordingLogger, useEmulator } from './harness';
import { sseHead, startRawServer, type RawServer } from './rawServer';

const SPECIAL_KEY = `Xk9Q"vQ7'WzJ,\\/pRt+&%ZyW`;
const SHORT_KEY = 'a7Q';
const FRAGMENTS: Record<string, string[]> = { [SPECIAL_KEY]: ['Xk9Q', 'vQ7', 'WzJ', 'pRt', 'ZyW'], [SHORT_KEY]: ['a7Q'] };

/** The forms an upstream echoes a key in. */
function echoes(key: string): string {
  const json = JSON.stringify(key).slice(1, -1);
  return [`Authorization: Bearer ${key}`, key, json.replace(/\//g, '\\/'), encodeURIComponent(key), new URLSearchParams({ k: key }).toString().slice(2)].join(' | ');
}

/** Fails when any recognisable part of the key is in `text`. */
function assertNoKey(text: string, key: string, where: string): void {
  for (const fragment of FRAGMENTS[key]) assert.ok(!text.includes(fragment), `${where} holds '${fragment}' of the key: ${text}`);
}

function errorText(error: unknown): string {
  const e = error as { message?: string; excerpt?: string; param?: string };
  return JSON.stringify({ message: e?.message, excerpt: e?.excerpt, param: e?.param, string: String(error) });
}

describe('api: the key never leaves the boundary, whatever the server echoes', () => {
  const h = useEmulator({ apiKeys: { [SPECIAL_KEY]: 'alice', [SHORT_KEY]: 'bob' }, responseWords: 8 });

  for (const key of [SPECIAL_KEY, SHORT_KEY]) {
    describe(`key ${JSON.stringify(key)}`, () => {
      const client = () => h.client({ apiKey: async () => key, logRequests: true });

      it('an agent `error` event echoing the key is redacted in the event and the log', async () => {
        h.emulator.faults.add({ kind: 'stream-error', path: '/v1/apps/chat-messages', afterEvents: 2, code: 502, message: `upstream refused: ${echoes(key)}` });
        const { items, error } = await drain(client().streamAgentMessage({ agent_id: 'rag-agent', query: 'hello', context: { model: 'emu-chat' } }));
        assert.equal(error, undefined);
        const failure = items.find((e): e is Extract<AgentEvent, { kind: 'error' }> => e.kind === 'error');
        assert.ok(failure, 'the error event arrived');
        assert.match(failure.message, /upstream refused: Authorization: Bearer \*\*\*/);
        assertNoKey(JSON.stringify(items), key, 'the events');
        assertNoKey(h.logLines.join('\n'), key, 'the log');
      });

      it('a chat stream error echoing the key is redacted in the error and the log', async () => {
        h.emulator.faults.add({ kind: 'stream-error', path: '/v3/chat/completions', afterEvents: 2, code: 500, message: `upstream refused: ${echoes(key)}` });
        const { error } = await drain(client().streamChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'hi' }] }));
        assert.match(String((error as Error)?.message), /upstream refused/);
        assertNoKey(errorText(error), key, 'the error');
        assertNoKey(h.logLines.join('\n'), key, 'the log');
      });
    });
  }

  describe('shapes the emulator does not produce (raw server)', () => {
    let raw: RawServer;
    let answer: (res: ServerResponse) => void;
    const logLines: string[] = [];
    const rawClient = (key: string) => new KsmClient({ baseUrl: raw.url, apiKey: async () => key, logger: recordingLogger(logLines), logRequests: true, retry: { retries: 0 } });
    before(async () => {
      raw = await startRawServer((_req, res) => answer(res));
    });
    after(() => raw.close());
    afterEach(() => {
      logLines.length = 0;
    });

    for (const key of [SPECIAL_KEY, SHORT_KEY]) {
      const json =
        (status: number, body: unknown, headers: Record<string, string> = {}) =>
        (res: ServerResponse) => {
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(JSON.stringify(body));
        };
      const cases: Array<[string, (res: ServerResponse) => void]> = [
        ['a D2 error body whose message and param echo the key', json(500, { code: 500, error: { message: `bad header ${echoes(key)}`, param: key } })],
        ['a 401 body echoing the key', json(401, { code: 401, message: `unknown key ${echoes(key)}` })],
        ['an answer without the expected shape (its excerpt)', json(200, { code: 200, infoz: [{ nonsense: echoes(key) }] })],
        [
          'an answer that is not JSON (its excerpt)',
          (res) => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(`<html><body>proxy saw ${echoes(key).replace(/&/g, '&amp;').replace(/"/g, '&quot;')}</body></html>`);
          },
        ],
        [
          'a redirect whose Location carries the key URL-encoded',
          (res) => {
            res.writeHead(302, { location: `https://elsewhere.example/login?token=${encodeURIComponent(key)}&form=${new URLSearchParams({ k: key }).toString().slice(2)}` });
            res.end();
          },
        ],
        ['a JSON error under HTTP 200 echoing the key', json(200, { code: 403, message: `forbidden for ${echoes(key)}` })],
      ];
      for (const [name, respond] of cases) {
        it(`key ${JSON.stringify(key)}: ${name}`, async () => {
          answer = respond;
          const failure = await rawClient(key)
            .listFiles({ volume: 'docs' })
            .then(
              () => assert.fail('the call should fail'),
              (error: unknown) => error,
            );
          assertNoKey(errorText(failure), key, 'the error');
          assertNoKey(logLines.join('\n'), key, 'the log');
        });
      }

      it(`key ${JSON.stringify(key)}: an unknown agent event and an error event carrying the key`, async () => {
        answer = (res) => {
          sseHead(res);
          res.write(`event: ${key.replace(/\s/g, '')}\ndata: ${JSON.stringify({ echo: echoes(key) })}\n\n`);
          res.write(`event: error\ndata: ${JSON.stringify({ code: 500, message: echoes(key) })}\n\n`);
          res.end(`event: done\ndata: {"status":"error"}\n\n`);
        };
        const { items, error } = await drain(rawClient(key).streamAgentMessage({ agent_id: 'rag-agent', query: 'q', context: { model: 'm' } }));
        assert.equal(error, undefined);
        assert.deepEqual(
          items.map((e) => e.kind),
          ['unknown', 'error', 'done'],
        );
        assertNoKey(JSON.stringify(items), key, 'the events');
        assertNoKey(logLines.join('\n'), key, 'the log');
      });
    }
  });

  it('a key no request header can carry (a pasted line break, a control character, a letter beyond Latin-1) is a configuration error before anything is sent, not a network failure', async () => {
    const raw = await startRawServer((_req, res) => void res.end('{}'));
    try {
      for (const key of ['abc\ndef', 'abc\u0001def', 'abc\u20acdef']) {
        const client = new KsmClient({ baseUrl: raw.url, apiKey: async () => key, retry: { retries: 0 } });
        const error = await client.listFiles({ volume: 'v' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.equal((error as { kind?: string }).kind, 'config', String(error));
        assert.match(String((error as Error).message), /header cannot carry/);
        assert.ok(!String((error as Error).message).includes('def'), 'the key is not in the message');
      }
      assert.equal(raw.requests.length, 0, 'nothing sent');
    } finally {
      await raw.close();
    }
  });
});
