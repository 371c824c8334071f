// "KSM: Check Connection" (src/connection/core) against the emulator and loopback stand-ins
// for a broken network, over real HTTP with the client and dispatcher the extension uses:
// every failure names its fix, the report never holds the key (even when a server echoes
// it), and the check makes no write to the service.
import { strict as assert } from 'node:assert';
import type { Dispatcher } from 'undici';
import { KsmClient } from '../../src/api/client';
import { createDispatcher, type NetworkSettings } from '../../src/api/network';
import { probeAddress } from '../../src/api/probe';
import { redactorFor } from '../../src/api/redact';
import type { CheckDeps, ConnectionReport, StepId } from '../../src/connection/core/checkRun';
import { runConnectionCheck } from '../../src/connection/core/connectionCheck';
import { fixActions, renderReport, verdict } from '../../src/connection/core/report';
import { useEmulator } from '../api/harness';
import { startRawServer, type RawServer } from '../api/rawServer';
import { startConnectProxy, startSelfSignedServer } from '../api/tlsAndProxy';

interface Options {
  baseUrl?: string;
  apiKey?: string | null;
  userId?: string;
  volumes?: string[];
  model?: string;
  askAgent?: boolean;
  network?: NetworkSettings;
  outputFormat?: 'chat' | 'responses';
}

describe('connection check against the emulator and a broken network', () => {
  const requests: string[] = [];
  const h = useEmulator({ log: (line) => requests.push(line) });
  const dispatchers: Dispatcher[] = [];
  let raw: RawServer | undefined;

  afterEach(async () => {
    await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
    await raw?.close();
    raw = undefined;
    h.emulator.setDialect(undefined);
  });

  function deps(options: Options = {}): CheckDeps {
    const network = options.network ?? { env: {} };
    const dispatcher = createDispatcher(network);
    dispatchers.push(dispatcher);
    const baseUrl = options.baseUrl ?? h.emulator.url;
    const key = options.apiKey === null ? undefined : (options.apiKey ?? h.emulator.apiKey);
    return {
      target: {
        baseUrl,
        userId: options.userId ?? h.emulator.userId,
        volumes: options.volumes ?? [],
        model: options.model ?? 'emu-chat',
        agentId: 'rag-agent',
        agentModel: options.model ?? 'emu-chat',
        ...(options.outputFormat ? { outputFormat: options.outputFormat } : {}),
        network: { proxy: network.proxyUrl, strictSSL: network.strictSSL !== false, caBundle: network.caBundlePath },
        askAgent: options.askAgent ?? false,
      },
      hasApiKey: key !== undefined,
      client: (shapes) => new KsmClient({ baseUrl, apiKey: async () => key, dispatcher, shapes, timeoutMs: 5000, retry: { retries: 0 } }),
      probe: (url) => probeAddress(url, { dispatcher, timeoutMs: 5000, redact: redactorFor([key]) }),
    };
  }

  const check = async (options: Options = {}) => {
    const report = await runConnectionCheck(deps(options));
    const key = options.apiKey === null ? undefined : (options.apiKey ?? h.emulator.apiKey);
    return { report, markdown: renderReport(report, [key]) };
  };
  const status = (report: ConnectionReport) => Object.fromEntries(report.steps.map((s) => [s.id, s.status])) as Record<StepId, string>;
  const step = (report: ConnectionReport, id: StepId) => report.steps.find((s) => s.id === id)!;
  const firstFailure = (report: ConnectionReport) => report.steps.find((s) => s.status === 'failed');

  it('passes every read-only step against a healthy service, with timings, and writes nothing', async () => {
    requests.length = 0;
    const { report, markdown } = await check({ volumes: ['team-docs'] });
    assert.deepEqual(status(report), {
      address: 'passed',
      reach: 'passed',
      key: 'passed',
      'personal-volume': 'passed',
      volumes: 'passed',
      model: 'passed',
      'output-format': 'passed',
      agent: 'skipped',
    });
    assert.ok(step(report, 'model').ms !== undefined && /First chunk after \d+ ms/.test(step(report, 'model').detail));
    assert.match(step(report, 'volumes').detail, /team-docs: does not exist yet/);
    assert.match(markdown, /^# KSM Connection Check\n\n\*\*Connected\.\*\* All 7 steps passed\./);
    assert.match(markdown, /chat stream: `\{id: "cha…"/, 'the shapes seen are listed, values cut short');
    assert.match(markdown, /None: the answers had the shapes of the client's own decisions/);
    assert.ok(!markdown.includes(h.emulator.apiKey));
    // Only reads reached the service: the probe, listings with limit 1, one completion.
    const calls = requests.map((line) => line.split(' ').slice(0, 2).join(' '));
    assert.ok(calls.length >= 4, JSON.stringify(calls));
    for (const call of calls) assert.ok(['GET /', 'GET /ksm/rag/v5/files', 'POST /v3/chat/completions'].includes(call), `only reads: ${call}`);
    assert.equal((await h.client().listFiles({ volume: `{${h.emulator.userId}}` })).total, 0, 'nothing was uploaded');
    assert.deepEqual(await threadIds(), [], 'no agent thread was started');
  });

  it('says whether the service honours output_parser "responses" (one small plain request), and which format works', async () => {
    requests.length = 0;
    const { report } = await check({ outputFormat: 'responses' });
    assert.equal(step(report, 'output-format').status, 'passed');
    assert.match(step(report, 'output-format').detail, /answered in the Responses format: both formats work/);
    assert.deepEqual(
      report.steps.map((s) => s.id),
      ['address', 'reach', 'key', 'personal-volume', 'volumes', 'model', 'output-format', 'agent'],
    );
    // A service that ignores output_parser answers a chat completion: only the chat format works.
    raw = await startRawServer((req, res) => {
      if (req.url === '/') return void res.end('ok');
      if (req.url?.startsWith('/ksm/rag/v5/files')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ total: 0, files: [] }));
      const body = JSON.parse(raw!.requests.at(-1)!.body) as { stream?: boolean };
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
        );
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant', content: 'ok' } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    const ignoring = await check({ baseUrl: raw.url, outputFormat: 'responses' });
    const formatStep = step(ignoring.report, 'output-format');
    assert.equal(formatStep.status, 'warning');
    assert.match(formatStep.detail, /ignored output_parser and answered in the chat format/);
    assert.match(formatStep.fix ?? '', /ksm\.chat\.outputFormat.*'chat'/);
    assert.equal(JSON.parse(raw.requests.filter((r) => r.url === '/v3/chat/completions').at(-1)!.body).output_parser, 'responses');
    const chatSetting = await check({ baseUrl: raw.url, outputFormat: 'chat' });
    assert.equal(step(chatSetting.report, 'output-format').status, 'passed', 'the chat format the setting asks for works');
  });

  it('asks the agent only when agreed, and reports the event shapes and the tolerant paths it used', async () => {
    h.emulator.setDialect('dify');
    // Its error bodies carry no `param`: an unknown named volume must still read as "not created yet".
    const { report, markdown } = await check({ askAgent: true, volumes: ['team-docs'] });
    assert.equal(firstFailure(report), undefined, markdown.slice(0, 600));
    assert.equal(step(report, 'agent').status, 'passed', step(report, 'agent').detail);
    assert.match(step(report, 'agent').detail, /events: thread, retrieval, message ×\d+, done; thread id received/);
    assert.match(markdown, /agent stream, event `message`: `\{event: "mes…", conversation_id: "thr…", message_id: "msg…", answer: /);
    for (const path of ["kind from the 'event' field", "text from 'answer'", "thread id from 'conversation_id'", "'message_end' ends the answer"]) {
      assert.ok(markdown.includes(`- ${path}`), `the report names the tolerant path "${path}"`);
    }
    // The emulator commits the turn before it sends `done`, so it is stored by now.
    assert.equal((await threadIds()).length, 1, 'the agreed question started one thread');
  });

  it('names a refused connection and says to check ksm.baseUrl; the later steps do not run', async () => {
    const { report, markdown } = await check({ baseUrl: 'http://127.0.0.1:1' });
    const failure = firstFailure(report)!;
    assert.equal(failure.id, 'reach');
    assert.equal(failure.problem, 'refused');
    assert.match(failure.fix!, /Nothing accepts connections at 127\.0\.0\.1:1\. Check the host and port in 'ksm\.baseUrl'/);
    assert.deepEqual(
      report.steps.slice(2).map((s) => s.status),
      ['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped'],
    );
    assert.match(markdown, /\*\*Failed\.\*\* First failing step: Reach the service \(network, proxy, TLS\)\. .*ECONNREFUSED/);
  });

  it('names a missing or malformed address before any request', async () => {
    const { report } = await check({ baseUrl: 'ksm.example.com' });
    assert.equal(firstFailure(report)!.id, 'address');
    assert.match(firstFailure(report)!.fix!, /ksm\.baseUrl.*not a valid http\(s\) URL/);
  });

  it('names a self-signed certificate and the CA bundle fix, and passes the step once the CA is given', async () => {
    const server = await startSelfSignedServer(h.dir, (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no such page');
    });
    try {
      const { report } = await check({ baseUrl: server.url });
      const failure = firstFailure(report)!;
      assert.equal(failure.id, 'reach');
      assert.equal(failure.problem, 'certificate');
      assert.match(failure.detail, /SELF_SIGNED|self[- ]signed/i);
      assert.match(failure.fix!, /ksm\.network\.caBundle/);
      const trusted = await check({ baseUrl: server.url, network: { caBundlePath: server.caPath, env: {} } });
      assert.equal(step(trusted.report, 'reach').status, 'passed');
      assert.match(step(trusted.report, 'reach').detail, /answered HTTP 404 .*TLS verified against Node's CAs plus .*tls-cert\.pem/);
    } finally {
      await server.close();
    }
  });

  it('names a dead proxy as the proxy, and goes through a working one', async () => {
    const dead = await check({ network: { proxyUrl: 'http://127.0.0.1:9', env: {} } });
    assert.equal(firstFailure(dead.report)!.problem, 'proxy');
    assert.match(firstFailure(dead.report)!.fix!, /http\.proxy.*http\.noProxy/);
    const proxy = await startConnectProxy();
    try {
      const through = await check({ network: { proxyUrl: proxy.url, env: {} } });
      assert.equal(firstFailure(through.report), undefined);
      assert.match(step(through.report, 'reach').detail, /through the proxy http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(proxy.tunnels.length >= 1);
    } finally {
      await proxy.close();
    }
  });

  it('passes against a service that answers errors as plain text or HTML, without a user id', async () => {
    for (const dialect of ['plain', 'proxy']) {
      h.emulator.setDialect(dialect);
      const { report, markdown } = await check({ userId: '', volumes: ['team-docs'] });
      assert.equal(step(report, 'key').status, 'passed', `${dialect}: ${markdown.slice(0, 600)}`);
      assert.equal(step(report, 'personal-volume').problem, 'user-id', 'without ksm.userId the fix says to set it');
      assert.equal(step(report, 'volumes').status, 'passed', `${dialect}: ${step(report, 'volumes').detail}`);
      assert.equal(step(report, 'model').status, 'passed');
    }
  });

  it('names an address that answers but is not the API (a wrong path), and a service failing with 503', async () => {
    const wrongPath = await check({ baseUrl: `${h.emulator.url}/api/v1` });
    const failure = firstFailure(wrongPath.report)!;
    // The key was never judged: the first failing step is the address's, not "API key accepted" (issue 26, rough edge 3).
    assert.equal(failure.id, 'api');
    assert.equal(failure.title, 'The address answers as the KSM API');
    assert.equal(failure.problem, 'not-the-api');
    assert.deepEqual(
      wrongPath.report.steps.slice(3).map((s) => s.status),
      ['skipped', 'skipped', 'skipped', 'skipped', 'skipped', 'skipped'],
    );
    assert.match(verdict(wrongPath.report), /^First failing step: The address answers as the KSM API\. /);
    assert.deepEqual(fixActions(wrongPath.report), [{ title: 'Open Settings', command: 'ksm.openSettings', argument: 'ksm.baseUrl' }]);
    assert.match(failure.fix!, /answers, but not as the KSM API.*'ksm\.baseUrl' \(now '.*\/api\/v1'\)/);
    h.emulator.faults.add({ kind: 'status', status: 503, path: '/ksm/rag/v5/files', times: 10, body: 'html' });
    const down = await check();
    assert.equal(firstFailure(down.report)!.problem, 'server');
    assert.equal(firstFailure(down.report)!.id, 'api', 'a failing service is not a refused key');
    assert.match(firstFailure(down.report)!.fix!, /Copy Report/);
  });

  it('names a refused key (401) and a missing key, with Set API Key as the fix', async () => {
    const { report } = await check({ apiKey: 'wrong-key-1234' });
    assert.equal(firstFailure(report)!.id, 'key');
    assert.equal(firstFailure(report)!.problem, 'key');
    assert.match(firstFailure(report)!.fix!, /KSM: Set API Key/);
    assert.deepEqual(
      report.steps.slice(3).map((s) => s.status),
      ['skipped', 'skipped', 'skipped', 'skipped', 'skipped'],
    );
    assert.deepEqual(fixActions(report), [{ title: 'Set API Key', command: 'ksm.setApiKey' }], 'the notification offers the fix, not only Copy Report');
    const none = await check({ apiKey: null });
    assert.equal(firstFailure(none.report)!.problem, 'no-key');
    assert.deepEqual(
      fixActions(none.report).map((a) => a.title),
      ['Set API Key'],
    );
  });

  it('never says ".." in the verdict or a step, whatever the failing detail ends with', async () => {
    h.emulator.faults.add({ kind: 'status', status: 403, path: '/ksm/rag/v5/files', times: 10 });
    const results = [
      await check({ baseUrl: 'http://127.0.0.1:1' }),
      await check({ baseUrl: `${h.emulator.url}/api/v1` }),
      await check({ model: 'emu-nope' }),
      // A named volume's failure ends its note with the service's own full stop.
      await check({ volumes: ['bad name!'] }),
    ];
    for (const { report, markdown } of results) {
      assert.doesNotMatch(verdict(report), /\.\.(?!\.)/, verdict(report));
      for (const step of report.steps) assert.doesNotMatch(step.detail, /\.\.(?!\.)/, step.detail);
      assert.doesNotMatch(markdown.split('## Response shapes')[0], /[^.]\.\.(?!\.)/);
    }
  });

  it('names an unknown model and the setting that holds model ids', async () => {
    const { report } = await check({ model: 'emu-nope' });
    const failure = firstFailure(report)!;
    assert.equal(failure.id, 'model');
    assert.equal(failure.problem, 'model');
    assert.match(failure.fix!, /does not know the model 'emu-nope'.*ksm\.chat\.models/);
  });

  it("names another user's personal volume (the user id) and an invalid volume name", async () => {
    const { report } = await check({ userId: 'someone-else', volumes: ['bad name!'] });
    assert.equal(step(report, 'key').status, 'passed', 'a 403 proves the key was accepted');
    const personal = step(report, 'personal-volume');
    assert.equal(personal.status, 'failed');
    assert.equal(personal.problem, 'user-id');
    assert.match(personal.fix!, /Set 'ksm\.userId' to the user id of this API key/);
    const volumes = step(report, 'volumes');
    assert.equal(volumes.problem, 'volume');
    assert.match(volumes.fix!, /'bad name!' in 'ksm\.volumes\.list'/);
  });

  it('never shows the key, even when every answer of the server echoes it', async () => {
    const key = 'sk-live-ECHO-9876543210';
    let refuse = false;
    raw = await startRawServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<html><body>Welcome ${key}</body></html>`);
      } else if (refuse) {
        res.writeHead(401, { 'content-type': 'text/html' });
        res.end(`<html><head><title>401</title></head><body>Key ${key} is revoked</body></html>`);
      } else if (req.url === '/ksm/rag/v5/files') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: 200, message: 'OK', total: 0, infoz: [], echo: key, [key]: 1 }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `model emu-chat is not enabled for ${key}`, type: 'not_found', param: 'model' } }));
      }
    });
    const first = await check({ baseUrl: raw.url, apiKey: key });
    assert.equal(firstFailure(first.report)!.problem, 'model');
    refuse = true;
    const second = await check({ baseUrl: raw.url, apiKey: key });
    assert.equal(firstFailure(second.report)!.problem, 'key');
    for (const markdown of [first.markdown, second.markdown]) {
      assert.ok(!markdown.includes(key), 'the key is not in the report');
      assert.ok(!markdown.includes('ECHO-98'), 'not even a piece of it');
    }
    assert.match(second.markdown, /error body, event `HTTP 401`: `text \(\d+ chars\)/);
  });

  /** The agent threads the emulator stored (its SQLite store, read through the emulator). */
  async function threadIds(): Promise<string[]> {
    return (await h.emulator.readThreads()).map((thread) => thread.id);
  }
});

describe('connection check: the verdict a notification shows', () => {
  it("quotes what the address answered as text, so a proxy's page cannot put a command link in it", () => {
    const report = {
      target: {},
      startedAt: new Date(0),
      shapes: [],
      steps: [{ id: 'address', title: 'The address answers', status: 'failed', detail: 'HTTP 502: [Fix the proxy](command:workbench.action.terminal.sendSequence?%7B%7D) \u202Eyxorp' }],
    } as unknown as ConnectionReport;
    const text = verdict(report);
    assert.match(text, /^First failing step: The address answers\. HTTP 502/);
    assert.equal(/\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i.exec(text), null, text);
    assert.ok(!text.includes('\u202E'), text);
  });
});
