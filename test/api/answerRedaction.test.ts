// The key out of the answer itself, whatever the model repeats: a streamed answer whose
// pieces split the key anywhere (one character an event, mid-key at a chunk's end) in the
// chat format, the Responses format and the agent's events; reasoning, tool-call arguments
// and citations; and the non-streamed answers. Over real HTTP against a raw server that
// repeats the Authorization header's key in its answers, and through `ksm ask`.
import { strict as assert } from 'node:assert';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamingSecretFilter } from '../../src/api/answerRedaction';
import { KsmClient } from '../../src/api/client';
import type { AgentEvent, ChatCompletionChunk } from '../../src/api/types';
import { runKsm } from '../cli/runKsm';
import { drain } from './harness';
import { sseHead, startRawServer, type RawServer } from './rawServer';

const KEY = 'sk-live-Q7w9Z2x8Vb4N';
/** Parts of the key no answer may hold, in any piece or all of them joined. */
const FRAGMENTS = ['sk-live-Q7', 'Q7w9Z2', 'Z2x8Vb', 'x8Vb4N'];

function assertNoKey(text: string, where: string): void {
  for (const fragment of FRAGMENTS) assert.ok(!text.includes(fragment), `${where} holds '${fragment}' of the key: ${text}`);
}

/** `text` cut into pieces at every `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const keyOf = (req: IncomingMessage) => String(req.headers.authorization).replace(/^Bearer /, '');

describe('api: the key is removed from the answer itself, however the stream splits it', () => {
  describe('the streaming filter', () => {
    const said = `Your key is ${KEY}, and again: ${KEY}. Bye.`;
    const expected = 'Your key is ***, and again: ***. Bye.';

    it('removes the key split at every possible place, and changes nothing else', () => {
      for (let size = 1; size <= said.length; size++) {
        const filter = new StreamingSecretFilter([KEY]);
        const out = pieces(said, size)
          .map((piece) => filter.push('c', piece))
          .join('');
        assert.equal(out + filter.end('c'), expected, `pieces of ${size}`);
      }
      for (let cut = 1; cut < said.length; cut++) {
        const filter = new StreamingSecretFilter([KEY]);
        assert.equal(filter.push('c', said.slice(0, cut)) + filter.push('c', said.slice(cut)) + filter.end('c'), expected, `cut at ${cut}`);
      }
    });

    it('holds back only a tail that could begin the key: ordinary text streams at once', () => {
      const filter = new StreamingSecretFilter([KEY]);
      assert.equal(filter.push('c', 'Hello world. '), 'Hello world. ');
      assert.equal(filter.push('c', 'The prefix sk'), 'The prefix ');
      assert.equal(filter.push('c', '-lite is a product.'), 'sk-lite is a product.');
      assert.deepEqual(filter.holding(), []);
    });

    it('at the end gives out a short held tail (it is text) but not most of the key', () => {
      const short = new StreamingSecretFilter([KEY]);
      assert.equal(short.push('c', 'see sk-'), 'see ');
      assert.equal(short.end('c'), 'sk-');
      const long = new StreamingSecretFilter([KEY]);
      assert.equal(long.push('c', `cut: ${KEY.slice(0, -1)}`), 'cut: ');
      assert.equal(long.end('c'), '***');
    });

    it('keeps channels apart, and an encoded key is removed within a piece', () => {
      const filter = new StreamingSecretFilter([KEY]);
      assert.equal(filter.push('a', 'sk-live'), '');
      assert.equal(filter.push('b', 'plain'), 'plain');
      assert.equal(filter.push('a', '-Q7w9Z2x8Vb4N!'), '***!');
      assert.equal(filter.push('b', ` ${encodeURIComponent(KEY)} ${JSON.stringify(KEY)}`), ' *** "***"');
    });

    it('removes a key with JSON, URL and HTML specials in each encoded form within a piece, the first character encoded too', () => {
      const special = `Xk9Q"vQ7'WzJ,\\/pRt+&%ZyW`;
      const entities = [...special].map((c) => `&#${c.charCodeAt(0)};`).join('');
      const forms = [special, JSON.stringify(special).slice(1, -1), encodeURIComponent(special), entities, `%58${special.slice(1)}`, `\\u0058${special.slice(1)}`];
      for (const form of forms) {
        const filter = new StreamingSecretFilter([special]);
        const out = filter.push('c', `said ${form} here`) + filter.end('c');
        assert.equal(out, 'said *** here', `form ${form}`);
      }
    });

    it('removes an encoded key split between pieces at every place, and one character a piece, in each form', () => {
      const special = `Xk9Q"vQ7'WzJ,\\/pRt+&%Zy W`;
      const entities = [...special].map((c) => `&#${c.charCodeAt(0)};`).join('');
      const hexEntities = [...special].map((c) => `&#X${c.charCodeAt(0).toString(16).toUpperCase()};`).join('');
      const twice = encodeURIComponent(encodeURIComponent(special));
      const mixed = [...special].map((c, i) => [c, `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`, `%${c.charCodeAt(0).toString(16)}`][i % 3]).join('');
      const forms = [JSON.stringify(special).slice(1, -1), encodeURIComponent(special), entities, hexEntities, twice, mixed, JSON.stringify(JSON.stringify(special)).slice(3, -3)];
      for (const form of forms) {
        const said = `said ${form} here`;
        for (let cut = 1; cut < said.length; cut++) {
          const filter = new StreamingSecretFilter([special]);
          assert.equal(filter.push('c', said.slice(0, cut)) + filter.push('c', said.slice(cut)) + filter.end('c'), 'said *** here', `form ${form} cut at ${cut}`);
        }
        const filter = new StreamingSecretFilter([special]);
        assert.equal([...said].map((c) => filter.push('c', c)).join('') + filter.end('c'), 'said *** here', `form ${form} a character a piece`);
      }
    });

    it('an encoded start that does not go on is given out as it was (a URL, a JSON escape, an entity)', () => {
      const filter = new StreamingSecretFilter([KEY]);
      const said = 'See https://example.com/a%20b?q=%73k&x=1 and \\u0073 and &#115;ome text & more.';
      assert.equal([...said].map((c) => filter.push('c', c)).join('') + filter.end('c'), said);
      assert.deepEqual(filter.holding(), []);
    });

    it('leaves a short key alone (a test token like "dev" would cut words apart)', () => {
      const filter = new StreamingSecretFilter(['dev']);
      assert.equal(filter.push('c', 'developer'), 'developer');
    });
  });

  describe('over HTTP, from a service that repeats the key in its answers', () => {
    let raw: RawServer;
    let answer: (req: IncomingMessage, res: ServerResponse) => void;
    before(async () => {
      raw = await startRawServer((req, res) => answer(req, res));
    });
    after(() => raw.close());
    const client = () => new KsmClient({ baseUrl: raw.url, apiKey: async () => KEY, retry: { retries: 0 } });
    const chatSse = (res: ServerResponse, chunks: Array<Partial<ChatCompletionChunk['choices'][number]['delta']> | { finish: string }>) => {
      sseHead(res);
      for (const delta of chunks) {
        const finish = 'finish' in delta ? delta.finish : null;
        res.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: 'finish' in delta ? {} : delta, finish_reason: finish }] })}\n\n`,
        );
      }
      res.end('data: [DONE]\n\n');
    };

    it('chat format: content, reasoning and tool-call arguments, one character an event', async () => {
      answer = (req, res) => {
        const key = keyOf(req);
        chatSse(res, [
          ...pieces(`thinking about ${key}`, 1).map((c) => ({ reasoning_content: c })),
          ...pieces(`The key is ${key}`, 1).map((c) => ({ content: c })),
          { tool_calls: [{ index: 0, id: 'call_1', type: 'function' as const, function: { name: 'search', arguments: '' } }] },
          ...pieces(JSON.stringify({ query: key }), 3).map((c) => ({ tool_calls: [{ index: 0, function: { arguments: c } }] })),
          { finish: 'tool_calls' },
        ]);
      };
      const { items, error } = await drain(client().streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'q' }] }));
      assert.equal(error, undefined);
      assertNoKey(JSON.stringify(items), 'the chunks');
      const joined = (pick: (d: ChatCompletionChunk['choices'][number]['delta']) => string | null | undefined) => items.map((c) => c.choices.map((ch) => pick(ch.delta) ?? '').join('')).join('');
      assert.equal(
        joined((d) => d.content),
        'The key is ***',
      );
      assert.equal(
        joined((d) => d.reasoning_content),
        'thinking about ***',
      );
      assert.equal(
        joined((d) => d.tool_calls?.map((t) => t.function?.arguments ?? '').join('')),
        '{"query":"***"}',
      );
    });

    it('chat format: an answer ending in the key with no finish reason before [DONE] is flushed redacted', async () => {
      answer = (req, res) =>
        chatSse(
          res,
          pieces(`ends with ${keyOf(req)}`, 4).map((c) => ({ content: c })),
        );
      const { items, error } = await drain(client().streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'q' }] }));
      assert.equal(error, undefined);
      assert.equal(items.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'ends with ***');
    });

    it('Responses format: text deltas split in the key, and a citation naming it', async () => {
      answer = (req, res) => {
        const key = keyOf(req);
        sseHead(res);
        const event = (type: string, fields: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
        const response = { id: 'resp_1', object: 'response', created_at: 1, model: 'm', status: 'in_progress', output: [] };
        event('response.created', { response });
        event('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } });
        for (const delta of pieces(`Key: ${key} [1]`, 5)) event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta });
        event('response.output_text.annotation.added', {
          item_id: 'msg_1',
          output_index: 0,
          content_index: 0,
          annotation_index: 0,
          annotation: { type: 'file_citation', file_id: 'f-1', filename: `notes-${key}.md`, index: 5 },
        });
        event('response.completed', { response: { ...response, status: 'completed' } });
        res.end();
      };
      const { items, error } = await drain(client().streamChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'q' }], output_parser: 'responses' }));
      assert.equal(error, undefined);
      assertNoKey(JSON.stringify(items), 'the chunks');
      assert.equal(items.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Key: *** [1]');
      assert.deepEqual(
        items.flatMap((c) => c.citations ?? []).map((c) => c.filename),
        ['notes-***.md'],
      );
    });

    it('agent events: the message and reasoning split in the key, citations, flushed before done', async () => {
      answer = (req, res) => {
        const key = keyOf(req);
        sseHead(res);
        res.write(`event: thread\ndata: ${JSON.stringify({ thread_id: 't-1' })}\n\n`);
        res.write(`event: retrieval\ndata: ${JSON.stringify({ thread_id: 't-1', citations: [{ file_id: 'f', filename: 'a.md', snippet: `token=${key}` }] })}\n\n`);
        for (const delta of pieces(`hmm ${key}`, 2)) res.write(`event: reasoning\ndata: ${JSON.stringify({ thread_id: 't-1', delta })}\n\n`);
        for (const delta of pieces(`Here: ${key.slice(0, 10)}`, 3)) res.write(`event: message\ndata: ${JSON.stringify({ thread_id: 't-1', delta })}\n\n`);
        for (const delta of pieces(key.slice(10), 3)) res.write(`event: message\ndata: ${JSON.stringify({ thread_id: 't-1', delta })}\n\n`);
        res.end(`event: done\ndata: ${JSON.stringify({ thread_id: 't-1', status: 'stop' })}\n\n`);
      };
      const { items, error } = await drain(client().streamAgentMessage({ agent_id: 'rag-agent', query: 'q', context: { model: 'm' } }));
      assert.equal(error, undefined);
      assertNoKey(JSON.stringify(items), 'the events');
      const text = (kind: 'message' | 'reasoning') =>
        items
          .filter((e): e is Extract<AgentEvent, { kind: typeof kind }> => e.kind === kind)
          .map((e) => e.delta)
          .join('');
      assert.equal(text('message'), 'Here: ***');
      assert.equal(text('reasoning'), 'hmm ***');
      assert.equal(items.at(-1)?.kind, 'done');
    });

    it('the non-streamed answers: a chat completion and an agent message', async () => {
      answer = (req, res) => {
        const key = keyOf(req);
        res.writeHead(200, { 'content-type': 'application/json' });
        if (req.url?.startsWith('/v3/'))
          res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: `k=${key}` } }] }));
        else res.end(JSON.stringify({ thread_id: 't', content: `k=${key}`, citations: [{ file_id: 'f', filename: `${key}.md` }] }));
      };
      const completion = await client().createChatCompletion({ model: 'm', messages: [{ role: 'user', content: 'q' }] });
      assert.equal(completion.choices[0]?.message.content, 'k=***');
      const message = await client().sendAgentMessage({ agent_id: 'rag-agent', query: 'q', context: { model: 'm' } });
      assert.equal(message.content, 'k=***');
      assertNoKey(JSON.stringify([completion, message]), 'the answers');
    });

    it('ksm ask prints the answer without the key (built, as a child process)', async function () {
      this.timeout(60_000);
      answer = (req, res) => chatSse(res, [...pieces(`The key you sent is ${keyOf(req)}.`, 1).map((c) => ({ content: c })), { finish: 'stop' }]);
      const run = await runKsm(['ask', 'what is my key?'], { KSM_BASE_URL: raw.url, KSM_API_KEY: KEY, KSM_MODEL: 'm' });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /The key you sent is \*\*\*\./);
      assertNoKey(run.stdout + run.stderr, 'ksm ask');
    });
  });
});
