// Tolerant decoding over real HTTP: the emulator serves the shapes the reference leaves
// "not shown" in each dialect (emulator/dialects.ts), and the conversation the chat panel
// builds from them (text, reasoning, citations, thread continued, usage) must come out
// identical to the one from our own decisions. Errors in every body form become the same
// sentence. A stream with a shape nothing reads logs one hint and shows what it could read.
import { strict as assert } from 'node:assert';
import type { ServerResponse } from 'node:http';
import type { Dialect } from '../../emulator/dialects';
import { KsmClient } from '../../src/api/client';
import { AuthenticationError, NotFoundError } from '../../src/api/errors';
import { SessionShapeLog, type ShapeObservation } from '../../src/api/shapes';
import type { AgentRequest } from '../../src/api/types';
import type { KsmService } from '../../src/api/service';
import { ask as askOnce, type AnswerEvent, type AnswerRequest } from '../../src/chat/core/answerStream';
import { drain, recordingLogger, useEmulator } from './harness';
import { sseHead, startRawServer, type RawServer } from './rawServer';

const DIALECTS: Array<{ name: string; dialect: Dialect | string; paths: RegExp[] }> = [
  { name: 'default (our decisions)', dialect: 'default', paths: [] },
  { name: 'dify preset', dialect: 'dify', paths: [/kind from the 'event' field/, /text from 'answer'/, /thread id from 'conversation_id'/, /'message_end' ends the answer/] },
  { name: 'openai preset', dialect: 'openai', paths: [/kind from the 'type' field/, /text from 'choices\[0\]\.delta\.(content|reasoning_content)'/, /thread id from 'metadata\.thread_id'/] },
  { name: 'fastapi preset', dialect: 'fastapi', paths: [/text from 'content'/, /thread id from 'threadId'/, /'end' ends the answer/] },
  { name: 'plain preset', dialect: 'plain', paths: [/kind from the 'type' field/, /text from 'text'/, /thread id from 'data\.thread_id'/] },
  { name: 'event field, CRLF, no final newline', dialect: { kind: 'event-field', eol: 'crlf', finalNewline: false }, paths: [/kind from the 'event' field/] },
  { name: 'CR line ends only', dialect: { eol: 'cr' }, paths: [] },
];

interface Turn {
  state?: string;
  content: string;
  reasoning?: string;
  citations: Array<Extract<AnswerEvent, { type: 'citations' }>['citations'][number]>;
  usage?: Extract<AnswerEvent, { type: 'usage' }>['usage'];
}

/** One answer through the chat engine's own entry point (what the panel shows), folded into a turn. */
async function answerOf(service: KsmService, request: AnswerRequest): Promise<{ turn: Turn; threadId?: string }> {
  const turn: Turn = { content: '', citations: [] };
  let threadId: string | undefined;
  for await (const event of askOnce(service, request, new AbortController().signal)) {
    if (event.type === 'text') turn.content += event.text;
    else if (event.type === 'reasoning') turn.reasoning = (turn.reasoning ?? '') + event.text;
    else if (event.type === 'citations') turn.citations.push(...event.citations);
    else if (event.type === 'thread') threadId = event.threadId;
    else if (event.type === 'usage') turn.usage = event.usage;
    else if (event.type === 'finished') turn.state = event.reason;
  }
  return { turn, threadId };
}

describe('api: tolerant decoding against every emulator dialect', () => {
  const h = useEmulator({ responseWords: 20 });
  const observed: ShapeObservation[] = [];
  const client = (apiKey?: string) => h.client({ shapes: { observe: (o) => observed.push(o) }, ...(apiKey ? { apiKey: async () => apiKey } : {}) });

  before(async () => {
    const path = h.file('ledger.md', '# Ledger\n\nThe reconciliation worker matches every refund against the ledger each night and flags mismatched invoices for the finance team.\n');
    const [uploaded] = await h.client().uploadFiles({ volume: `{${h.emulator.userId}}`, embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
    assert.ok(uploaded.ok);
    await h.emulator.waitForIdle();
  });
  afterEach(() => {
    h.emulator.setDialect(undefined);
    observed.length = 0;
  });

  const ask = (query: string, threadId?: string): AgentRequest => ({
    agent_id: 'rag-agent',
    query,
    thread_id: threadId ?? null,
    context: { model: 'emu-reasoner', enable_thinking: true },
  });

  /** Two agent turns through the chat engine's answer stream (what the panel shows). */
  async function conversation(): Promise<{ turns: Turn[]; threadIds: string[] }> {
    const turns: Turn[] = [];
    const threadIds: string[] = [];
    for (const query of ['What does the ledger say about refunds?', 'And who gets the flagged invoices?']) {
      const { turn, threadId } = await answerOf(client(), { kind: 'agent', body: ask(query, threadIds[0]) });
      threadIds.push(threadId ?? '(none)');
      turns.push(turn);
    }
    return { turns, threadIds };
  }

  let reference: Turn[] | undefined;
  let referencePlain: unknown;
  let referenceChat: string | undefined;

  for (const { name, dialect, paths } of DIALECTS) {
    it(`streams the same agent conversation in the ${name} dialect`, async () => {
      h.emulator.setDialect(dialect);
      const { turns, threadIds } = await conversation();
      assert.equal(threadIds[1], threadIds[0], 'the second turn continued the thread of the first');
      assert.match(threadIds[0], /^thr_/);
      for (const turn of turns) {
        assert.equal(turn.state, 'done');
        assert.ok(turn.content.length > 20 && turn.reasoning && turn.citations?.length && turn.usage?.totalTokens, `a full turn: ${JSON.stringify(turn)}`);
      }
      assert.match(turns[1].content, /Turn 2 of this thread/, 'the service saw the history: the thread was continued');
      reference ??= turns;
      assert.deepEqual(turns, reference, 'identical to the conversation in our own dialect');
      const used = observed.flatMap((o) => o.paths);
      for (const path of paths)
        assert.ok(
          used.some((p) => path.test(p)),
          `the tolerant path ${path} was used; used: ${JSON.stringify([...new Set(used)])}`,
        );
      assert.deepEqual(
        observed.filter((o) => o.unknown),
        [],
        'every shape was known',
      );
      assert.deepEqual(
        h.logLines.filter((l) => l.startsWith('warn')),
        [],
      );
    });

    it(`answers the same plain agent message and chat stream, and the same error sentences, in the ${name} dialect`, async () => {
      h.emulator.setDialect(dialect);
      const first = await client().sendAgentMessage(ask('What does the ledger say about refunds?'));
      const second = await client().sendAgentMessage(ask('And who gets the flagged invoices?', first.threadId));
      assert.equal(second.threadId, first.threadId);
      const plain = [first, second].map(({ content, reasoningContent, citations, usage, status }) => ({ content, reasoningContent, citations, usage, status }));
      referencePlain ??= plain;
      assert.deepEqual(plain, referencePlain);

      const chunks = await drain(client().streamChatCompletion({ model: 'emu-chat', messages: [{ role: 'user', content: 'Say something about ledgers.' }], seed: 7 }));
      assert.equal(chunks.error, undefined, 'the chat stream ended properly');
      const text = chunks.items.map((c) => c.choices[0]?.delta.content ?? '').join('');
      referenceChat ??= text;
      assert.equal(text, referenceChat);

      const lost = await client()
        .sendAgentMessage(ask('q', 'thr_missing'))
        .catch((e: unknown) => e);
      assert.ok(lost instanceof NotFoundError, String(lost));
      assert.match(lost.message, /failed: not found: thread thr_missing does not exist for this user and agent\./);
      assert.ok(!/[<>{}]/.test(lost.message), `one plain sentence: ${lost.message}`);
      const refused = await client('wrong-key-1234')
        .listFiles({ volume: 'docs' })
        .catch((e: unknown) => e);
      assert.ok(refused instanceof AuthenticationError, String(refused));
      assert.match(refused.message, /did not accept the API key: the API key is not valid\. Set your API key/);
    });
  }

  it('refuses an unknown dialect key or value through the test control, naming it', async () => {
    assert.throws(() => h.emulator.setDialect('colour=blue'), /unknown dialect key 'colour'/);
    assert.throws(() => h.emulator.setDialect({ text: 'body' } as unknown as Dialect), /text must be one of/);
    const response = await fetch(`${h.emulator.url}/_emulator/dialect`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ dialect: 'dify' }) });
    assert.equal(response.status, 200);
    assert.deepEqual(((await response.json()) as { dialect: Dialect }).dialect.text, 'answer');
  });
});

describe('api: a stream with a shape nothing reads', () => {
  let server: RawServer;
  afterEach(() => server?.close());

  const write = (res: ServerResponse, text: string) => {
    sseHead(res);
    res.end(text);
  };

  it('logs one hint for the session (redacted, shortened), and shows what it could read', async () => {
    const key = 'sk-secret-KEY-123456';
    server = await startRawServer((_req, res) =>
      write(
        res,
        'event: thread\ndata: {"thread_id":"t1"}\n\n' +
          `event: tool_progress\ndata: {"thread_id":"t1","note":"calling search with ${key} and a very long argument list"}\n\n` +
          'event: message\ndata: {"thread_id":"t1","payload":{"words":"lost words"}}\n\n' +
          'event: message\ndata: {"thread_id":"t1","delta":"What "}\n\n' +
          'data: {"type":"message","thread_id":"t1","content":"arrived."}\n\n' +
          'event: done\ndata: {"thread_id":"t1","status":"stop"}\n\n',
      ),
    );
    const lines: string[] = [];
    const logger = recordingLogger(lines);
    const session = new SessionShapeLog(() => logger);
    const answers: Turn[] = [];
    for (let i = 0; i < 2; i++) {
      // A new client per answer, as the extension builds one per use: the hint is per session.
      const client = new KsmClient({ baseUrl: server.url, apiKey: async () => key, logger, shapes: session });
      answers.push((await answerOf(client, { kind: 'agent', body: { agent_id: 'a', query: 'q' } })).turn);
    }
    for (const answer of answers) {
      assert.equal(answer.state, 'done');
      assert.equal(answer.content, 'What arrived.', 'the text of the shapes it knows is shown');
    }
    const warnings = lines.filter((l) => l.startsWith('warn'));
    assert.equal(warnings.length, 1, `one hint per session: ${JSON.stringify(lines)}`);
    assert.match(warnings[0], /event 'tool_progress'/);
    assert.match(warnings[0], /KSM: Check Connection/);
    assert.ok(warnings[0].length < 600, 'shortened');
    assert.ok(
      lines.some((l) => l.startsWith('debug') && /no text in any known field/.test(l)),
      'later unknown shapes go to debug',
    );
    for (const line of lines) {
      assert.ok(!line.includes(key) && !line.includes('sk-'), `no key, not even its start: ${line}`);
      assert.ok(!line.includes('very long argument'), `values are cut short: ${line}`);
    }
  });

  it('ends on message_end when the connection then closes cleanly, but still reports a stream cut before it', async () => {
    let cut = false;
    server = await startRawServer((_req, res) =>
      write(
        res,
        'data: {"event":"message","conversation_id":"c9","answer":"Hello"}\n\n' +
          (cut ? '' : 'data: {"event":"message_end","conversation_id":"c9","metadata":{"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}}'),
      ),
    );
    const client = new KsmClient({ baseUrl: server.url, apiKey: async () => 'k-123456' });
    const { items, error } = await drain(client.streamAgentMessage({ agent_id: 'a', query: 'q' }));
    assert.equal(error, undefined);
    assert.deepEqual(
      items.map((e) => e.kind),
      ['message', 'done'],
    );
    const done = items[1];
    assert.ok(done.kind === 'done' && done.threadId === 'c9' && done.usage?.total_tokens === 4);
    cut = true;
    const second = await drain(client.streamAgentMessage({ agent_id: 'a', query: 'q' }));
    assert.equal(second.error?.constructor.name, 'StreamCutOffError');
  });

  it('reads a plain agent answer with the thread id nested and the text under answer', async () => {
    server = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { thread_id: 'thr_9' }, answer: 'Hi there', retriever_resources: [{ file_id: 'f1', filename: 'a.md' }] }));
    });
    const message = await new KsmClient({ baseUrl: server.url, apiKey: async () => 'k-123456' }).sendAgentMessage({ agent_id: 'a', query: 'q' });
    assert.equal(message.threadId, 'thr_9');
    assert.equal(message.content, 'Hi there');
    assert.deepEqual(message.citations, [{ file_id: 'f1', filename: 'a.md' }]);
  });
});
