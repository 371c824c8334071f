// `ksm ask`, the built command line as a child process, against the emulator over real HTTP
// (through a recording pass-through, so each flag is seen on the wire): every chat flag, a
// bad value of each (exit 2 naming the flag and its range, no request sent), context piped
// on stdin, the Responses format, and the --json document's fields, sources included.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { startRecordingProxy, type RawServer } from '../api/rawServer';
import { startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { runKsm } from './runKsm';

const ksm = (args: string[], env: Record<string, string | undefined>, stdin = '') => runKsm(args, env, { stdin });

describe('ksm ask: every parameter, stdin context, the Responses format and the --json document', function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  let proxy: RawServer;
  let env: Record<string, string>;
  const completions = () => proxy.requests.filter((r) => r.url === '/v3/chat/completions');
  const lastBody = () => JSON.parse(completions().at(-1)!.body) as Record<string, unknown>;

  before(async () => {
    fx = await startFixture(5);
    proxy = await startRecordingProxy(() => fx.emulator.url);
    env = { KSM_BASE_URL: proxy.url, KSM_API_KEY: fx.emulator.apiKey, KSM_USER_ID: 'dev' };
    await ksm(['--version'], {}); // builds dist/cli.js once if it is stale
  });
  after(async () => {
    await proxy.close();
    await fx.close();
  });

  it('sends each flag as its wire field, with user and metadata', async () => {
    const schema = join(fx.workDir, 'schema.json');
    await writeFile(schema, JSON.stringify({ type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] }));
    const run = await ksm(
      [
        'ask',
        '--model',
        'emu-chat',
        '--system',
        'Be brief.',
        '--temperature',
        '0.5',
        '--top-p',
        '0.9',
        '--max-tokens',
        '200',
        '--stop',
        'END',
        '--stop',
        '###',
        '--seed',
        '42',
        '--frequency-penalty',
        '0.3',
        '--repetition-penalty',
        '1.1',
        '--json-schema',
        schema,
        'Give',
        'an',
        'answer',
      ],
      env,
    );
    assert.equal(run.code, 0, run.stderr);
    const body = lastBody();
    assert.deepEqual(body.messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Give an answer' },
    ]);
    assert.deepEqual([body.temperature, body.top_p, body.max_completion_tokens, body.stop, body.seed, body.frequency_penalty, body.repetition_penalty], [0.5, 0.9, 200, ['END', '###'], 42, 0.3, 1.1]);
    assert.deepEqual(body.response_format, { type: 'json_schema', json_schema: JSON.parse(await readFile(schema, 'utf8')) });
    assert.equal(body.user, 'dev');
    assert.deepEqual(body.metadata, { client: 'ksm-cli' });
    assert.doesNotThrow(() => JSON.parse(run.stdout), 'the emulator answered JSON matching the schema');

    const json = await ksm(['ask', '--model', 'emu-chat', '--json-object', 'json please'], env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(lastBody().response_format, { type: 'json_object' });
    const reasoning = await ksm(['ask', '--model', 'emu-reasoner', '--reasoning-effort', 'high', 'think'], env);
    assert.equal(reasoning.code, 0, reasoning.stderr);
    assert.deepEqual(lastBody().reasoning, { effort: 'high' });
  });

  for (const [args, message] of [
    [['--temperature', '3'], /--temperature: Temperature must be from 0 to 2\./],
    [['--temperature', 'warm'], /--temperature: Temperature must be from 0 to 2\./],
    [['--top-p', '0'], /--top-p: Top P must be above 0 and at most 1\./],
    [['--max-tokens', '0'], /--max-tokens: Max tokens must be a whole number of at least 1\./],
    [['--max-tokens', '2.5'], /--max-tokens: Max tokens must be a whole number/],
    [['--stop', 'a', '--stop', 'b', '--stop', 'c', '--stop', 'd', '--stop', 'e'], /--stop: Stop sequences must be 1 to 4 sequences\./],
    [['--seed', '1.5'], /--seed: Seed must be a whole number from -1 to/],
    [['--frequency-penalty', '-3'], /--frequency-penalty: Frequency penalty must be from -2 to 2\./],
    [['--repetition-penalty', '2.5'], /--repetition-penalty: Repetition penalty must be from 0 to 2\./],
    [['--reasoning-effort', 'max'], /--reasoning-effort: Reasoning effort must be low, medium or high\./],
    [['--output-format', 'xml'], /--output-format: the answer format must be chat or responses, not 'xml'\./],
    [['--json-schema', '/no/such/schema.json'], /--json-schema: cannot read \/no\/such\/schema\.json/],
    [['--json-object', '--json-schema', 'x.json'], /--json-schema and --json-object: give one of the two/],
  ] as const) {
    it(`exits 2 before any request on ${args.join(' ')}`, async () => {
      const before = proxy.requests.length;
      const run = await ksm(['ask', '--model', 'emu-chat', ...args, 'question'], env);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
      assert.equal(proxy.requests.length, before, 'nothing was sent');
    });
  }

  it('refuses chat-only flags with --agent, and a bad value with --json as a usage document', async () => {
    const agent = await ksm(['ask', '--agent', '--model', 'emu-chat', '--temperature', '0.5', 'q'], env);
    assert.equal(agent.code, 2);
    assert.match(agent.stderr, /--temperature: for chat models only/);
    const json = await ksm(['ask', '--model', 'emu-chat', '--seed', 'x', '--json', 'q'], env);
    assert.equal(json.code, 2);
    assert.equal(JSON.parse(json.stdout).error.kind, 'usage');
  });

  it("a refused key exits 3 with the engine's sentence and never prints the key; a Responses stream cut short exits 5", async () => {
    const wrongKey = 'sk-wrong-ask-0123456789abcdef';
    const refused = await ksm(['ask', '--model', 'emu-chat', '--output-format', 'responses', 'q'], { ...env, KSM_API_KEY: wrongKey });
    assert.equal(refused.code, 3, refused.stderr);
    assert.ok(!refused.stderr.includes(wrongKey) && !refused.stdout.includes(wrongKey));
    fx.emulator.faults.add({ kind: 'no-terminator', path: '/v3/chat/completions' });
    const cut = await ksm(['ask', '--model', 'emu-chat', '--output-format', 'responses', 'cut', 'me'], env);
    assert.equal(cut.code, 5, cut.stderr);
    assert.ok(cut.stdout.length > 0, 'the text that arrived was printed');
    assert.match(cut.stderr, /cut off|incomplete|stopped/i);
  });

  it('the agent without a model, an empty question, a bad --volume and an empty or stale --thread say the flag to fix, with the documented exit codes', async () => {
    const agentCalls = () => proxy.requests.filter((r) => r.url === '/v1/apps/chat-messages').length;
    const before = agentCalls();
    // The README's example with only the address and key exported: a configuration problem, told in the command line's terms.
    const noModel = await ksm(['ask', '--agent', 'What changed in the release process?'], env);
    assert.equal(noModel.code, 3, noModel.stderr);
    assert.match(noModel.stderr, /No model for the agent: rag-agent answers with a chat model\. Pass --model <id> or set KSM_MODEL\./);
    assert.doesNotMatch(noModel.stderr, /ksm\.agent\.model/, 'no editor setting on the command line');
    const empty = await ksm(['ask', '--model', 'emu-chat', ' '], env);
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /Ask a question: ksm ask "/);
    const badVolume = await ksm(['ask', '--agent', '--model', 'emu-chat', '--volume', 'bad/name', '--json', 'q'], env);
    assert.equal(badVolume.code, 2, badVolume.stderr);
    assert.match(badVolume.stderr, /'bad\/name' is not a volume name/);
    assert.equal(JSON.parse(badVolume.stdout).error.kind, 'usage');
    const emptyThread = await ksm(['ask', '--agent', '--model', 'emu-chat', '--thread', '', 'q'], env);
    assert.equal(emptyThread.code, 2, emptyThread.stderr);
    assert.match(emptyThread.stderr, /--thread: give the id an earlier answer printed/);
    assert.equal(agentCalls(), before, 'none of them was sent');

    const stale = await ksm(['ask', '--agent', '--model', 'emu-chat', '--thread', 'thr_0000000000000000deadbeef', '--json', 'q'], env);
    assert.equal(stale.code, 2, stale.stderr);
    assert.match(stale.stderr, /--thread: the service no longer knows this agent thread\. Leave out --thread to start a new one\./);
    assert.doesNotMatch(stale.stderr, /Start a new chat/);
    assert.equal(JSON.parse(stale.stdout).error.kind, 'usage');
  });

  it("the service's refusal of a model or an agent id exits 3 (configuration), not 5 (service down)", async () => {
    const model = await ksm(['ask', '--model', 'no-such-model', 'q'], env);
    assert.equal(model.code, 3, model.stderr);
    assert.match(model.stderr, /unknown model "no-such-model"/);
    const agent = await ksm(['ask', '--agent-id', 'no-such-agent', '--model', 'emu-chat', 'q'], env);
    assert.equal(agent.code, 3, agent.stderr);
    assert.match(agent.stderr, /unknown agent "no-such-agent"/);
    // KSM_AGENT_ID names the agent for --agent, as it does for search, fetch and mcp; --agent-id wins over it.
    const fromEnv = await ksm(['ask', '--agent', '--model', 'emu-chat', 'q'], { ...env, KSM_AGENT_ID: 'env-agent' });
    assert.equal(fromEnv.code, 3, fromEnv.stderr);
    assert.match(fromEnv.stderr, /unknown agent "env-agent"/);
    const flagWins = await ksm(['ask', '--agent-id', 'flag-agent', '--model', 'emu-chat', 'q'], { ...env, KSM_AGENT_ID: 'env-agent' });
    assert.match(flagWins.stderr, /unknown agent "flag-agent"/);
  });

  it('puts text piped to stdin before the question as context', async () => {
    const diff = 'diff --git a/x.ts b/x.ts\n+const answer = 42;\n';
    const run = await ksm(['ask', '--model', 'emu-chat', 'review', 'this'], env, diff);
    assert.equal(run.code, 0, run.stderr);
    const content = (lastBody().messages as Array<{ content: string }>)[0].content;
    assert.ok(content.includes(diff) && content.endsWith('review this'), content);
    assert.match(content, /^`stdin`:\n\n```\n/);
  });

  it('cuts a private key out of piped text (the rest goes) and says so on stderr', async () => {
    const piped = 'deploy notes\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----\n';
    const run = await ksm(['ask', '--model', 'emu-chat', 'what', 'is', 'this'], env, piped);
    assert.equal(run.code, 0, run.stderr);
    const content = (lastBody().messages as Array<{ content: string }>)[0].content;
    assert.ok(content.includes('deploy notes') && !content.includes('b3BlbnNz'), content);
    assert.match(content, /\[a private key was left out: private keys are never sent\]/);
    assert.match(run.stderr, /^ksm: left 1 private key\(s\) out of the piped context: private keys are never sent\.$/m);
  });

  it('asks in the Responses format and gives the same --json document as the chat format', async () => {
    const chat = await ksm(['ask', '--model', 'emu-reasoner', '--seed', '3', '--reasoning-effort', 'low', '--json', 'why', 'tides'], env);
    const responses = await ksm(['ask', '--model', 'emu-reasoner', '--seed', '3', '--reasoning-effort', 'low', '--output-format', 'responses', '--json', 'why', 'tides'], env);
    assert.equal(responses.code, 0, responses.stderr);
    assert.equal(lastBody().output_parser, 'responses');
    const [a, b] = [JSON.parse(chat.stdout), JSON.parse(responses.stdout)];
    assert.equal(a.outputFormat, 'chat');
    assert.equal(b.outputFormat, 'responses');
    assert.deepEqual({ ...b, outputFormat: 'chat' }, a);
    assert.deepEqual(Object.keys(a).sort(), ['answer', 'finishReason', 'model', 'outputFormat', 'reasoning', 'sources', 'threadId', 'usage']);
    assert.ok(a.answer.length > 0 && a.reasoning.length > 0);
    assert.equal(a.finishReason, 'stop');
    assert.ok(a.usage.totalTokens > 0 && a.usage.reasoningTokens > 0);
  });

  it('--json for the agent: answer, thread id, usage, and each source with file name, volume, file id and passage', async () => {
    const folder = join(fx.workDir, 'agent-docs');
    const [path] = await writeTree(folder, { 'release.md': '# Release process\n\nHotfixes are cut from the release branch and tagged with a patch version.\n' });
    const personal = `{${fx.emulator.userId}}`;
    const [uploaded] = await fx.client.uploadFiles({ volume: personal, embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
    assert.ok(uploaded.ok);
    await fx.emulator.waitForIdle();
    const run = await ksm(['ask', '--agent', '--model', 'emu-chat', '--json', 'How', 'are', 'hotfixes', 'released?'], env);
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.agent, 'rag-agent');
    assert.ok(doc.answer.length > 0);
    assert.match(doc.threadId, /\S/);
    assert.ok(doc.usage === null || doc.usage.totalTokens > 0);
    assert.ok(doc.sources.length > 0, 'the agent cited the uploaded file');
    const source = doc.sources[0];
    assert.equal(source.filename, 'release.md');
    assert.equal(source.volume, personal);
    assert.match(source.fileId, /\S/);
    assert.match(source.passage, /Hotfixes/);
  });
});
