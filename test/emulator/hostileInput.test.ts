// Issue 12: the emulator holds against hostile files and requests, over real HTTP. Every
// expansion is bounded (a file over a limit ends `na` with the reason; a request over one
// is a 413 naming it), processing runs in workers, and errors name the real problem.
import { strict as assert } from 'node:assert';
import { request as httpRequest } from 'node:http';
import { MAX_SCHEMA_OUTPUT_CHARS, MAX_UPLOAD_FIELDS, MAX_ZIP_ENTRIES, MAX_ZIP_INFLATED_BYTES } from '../../emulator/limits';
import { buildDocx } from './buildZip';
import { assertErrorBody, call, list, upload, useFreshEmulator, waitForStatus } from './support';

const FILES = '/ksm/rag/v5/files';
const MB = 1024 * 1024;

describe('emulator: hostile files end na with the limit as the reason (workers, limits.ts)', () => {
  const s = useFreshEmulator({ stepMs: 1 });

  it('an honest DOCX built by the test helper becomes done and is searchable (the helper makes real DOCX files)', async () => {
    const [info] = await upload(s.emu, 'docx', [{ name: 'honest.docx', content: buildDocx('The lighthouse keeper logs every passing tanker.') }]);
    assert.equal((await waitForStatus(s.emu, 'docx', info.uuid, ['done', 'na'])).status, 'done');
    const answer = await call(s.emu, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'lighthouse keeper tanker', stream: false, context: { model: 'emu-chat', volumes: ['docx'] } });
    assert.equal(answer.json.citations[0]?.file_id, info.uuid);
  });

  it(`a small DOCX that inflates past ${MAX_ZIP_INFLATED_BYTES / MB} MB ends na naming the limit, and listing answers meanwhile`, async function () {
    this.timeout(120_000);
    const bomb = buildDocx('boom', MAX_ZIP_INFLATED_BYTES + 8 * MB);
    assert.ok(bomb.length < 1 * MB, `the bomb is small on the wire (${bomb.length} bytes)`);
    const [info] = await upload(s.emu, 'bombs', [{ name: 'bomb.docx', content: bomb }]);
    let listingsWhileProcessing = 0;
    for (;;) {
      const { status, json } = await list(s.emu, 'bombs');
      assert.equal(status, 200);
      const file = json.infoz.find((f: any) => f.uuid === info.uuid);
      if (file.status === 'done' || file.status === 'na') {
        assert.equal(file.status, 'na');
        assert.match(file.status_detail, new RegExp(`inflates to more than ${MAX_ZIP_INFLATED_BYTES / MB} MB`));
        break;
      }
      listingsWhileProcessing += 1;
    }
    assert.ok(listingsWhileProcessing > 0, 'the server answered listings while the bomb was processed');
  });

  it(`a DOCX with more than ${MAX_ZIP_ENTRIES} entries ends na naming the entry limit`, async () => {
    const entries = Array.from({ length: MAX_ZIP_ENTRIES + 1 }, (_, i) => ({ name: `word/media/e${i}.xml`, data: Buffer.from('x') }));
    const [info] = await upload(s.emu, 'bombs', [{ name: 'many.docx', content: buildDocx('many', 0, entries) }]);
    const final = await waitForStatus(s.emu, 'bombs', info.uuid, ['done', 'na']);
    assert.equal(final.status, 'na');
    assert.match(final.status_detail, new RegExp(`${MAX_ZIP_ENTRIES + 4} entries, over the emulator's limit of ${MAX_ZIP_ENTRIES}`));
  });

  it('a DOCX whose headers understate what it inflates to ends na (real bytes are counted, not claimed sizes)', async () => {
    const liar = buildDocx('liar', 0, [{ name: 'word/liar.xml', data: Buffer.alloc(2 * MB, ' '), claimedSize: 10 }]);
    const [info] = await upload(s.emu, 'bombs', [{ name: 'liar.docx', content: liar }]);
    const final = await waitForStatus(s.emu, 'bombs', info.uuid, ['done', 'na']);
    assert.equal(final.status, 'na');
    assert.match(final.status_detail, /docx filter failed: .*(too many bytes|size)/i);
  });
});

describe('emulator: a worker that runs past the time limit is ended, the file ends na, the next file is processed', () => {
  // 1 s (counted from a loaded worker): far beyond what a small file needs even on a busy
  // machine, far below what 60 MB needs even on a quiet one (5 s was outrun there).
  const s = useFreshEmulator({ stepMs: 1, fileTimeoutMs: 1000, processingWorkers: 1 });

  it('a 60 MB text outlasting fileTimeoutMs ends na with the timeout reason; a file after it ends done', async function () {
    this.timeout(180_000);
    const big = Buffer.from('tide moon harbour '.repeat(Math.ceil((60 * MB) / 18)));
    const [slow] = await upload(s.emu, 'timeouts', [{ name: 'slow.txt', content: big }]);
    const slowFinal = await waitForStatus(s.emu, 'timeouts', slow.uuid, ['done', 'na']);
    assert.equal(slowFinal.status, 'na');
    assert.match(slowFinal.status_detail, /processing took longer than 1 s, the emulator's limit per file/);
    const [quick] = await upload(s.emu, 'timeouts', [{ name: 'quick.txt', content: 'a quick file about harbours' }]);
    assert.equal((await waitForStatus(s.emu, 'timeouts', quick.uuid, ['done', 'na'])).status, 'done');
  });
});

describe('emulator: a worker that runs out of memory takes only its file with it', () => {
  // A 16 MB heap cap stands in for the real 1 GB one, so a 40 MB text is enough to exceed it.
  const s = useFreshEmulator({ stepMs: 1, workerHeapMb: 16, processingWorkers: 1 });

  it('the file ends na naming the heap cap, the emulator keeps serving, and the next file ends done', async function () {
    this.timeout(120_000);
    const [big] = await upload(s.emu, 'oom', [{ name: 'huge.txt', content: Buffer.from('word '.repeat(8 * MB)) }]);
    const final = await waitForStatus(s.emu, 'oom', big.uuid, ['done', 'na']);
    assert.equal(final.status, 'na');
    assert.match(final.status_detail, /processing ran out of memory \(the worker's 16 MB heap cap\)/);
    const [small] = await upload(s.emu, 'oom', [{ name: 'small.txt', content: 'small words' }]);
    assert.equal((await waitForStatus(s.emu, 'oom', small.uuid, ['done', 'na'])).status, 'done');
  });
});

describe('emulator: a 60 MB file is processed off the request thread', () => {
  // No time limit worth the name here: a busy machine must not turn this into a timeout test.
  const s = useFreshEmulator({ stepMs: 0, fileTimeoutMs: 3_600_000 });

  it('listing keeps answering while the 60 MB file is filtered, chunked and embedded, and the file ends done', async function () {
    this.timeout(600_000);
    const big = Buffer.from('lanterns guide ships past the reef at night '.repeat(Math.ceil((60 * MB) / 44)));
    const [info] = await upload(s.emu, 'big', [{ name: 'big.txt', content: big }]);
    // While the worker runs, the file sits in `waiting` (its status moves on when the work is
    // done). Processing on the request thread would answer at most a listing or two in that
    // time; a worker leaves the thread free for many.
    let answeredWhileWaiting = 0;
    for (;;) {
      const { status, json } = await list(s.emu, 'big');
      assert.equal(status, 200);
      const file = json.infoz[0];
      if (file.status === 'waiting') answeredWhileWaiting += 1;
      if (file.status === 'done' || file.status === 'na') {
        assert.equal(file.status, 'done', file.status_detail);
        break;
      }
    }
    assert.ok(answeredWhileWaiting >= 20, `listings answered while the worker processed the file: ${answeredWhileWaiting}`);
    assert.equal(info.filesize, big.length);
  });
});

describe('emulator: json_schema generation is bounded', () => {
  const s = useFreshEmulator();
  const bomb = { type: 'array', minItems: 2_000_000, items: { type: 'string', minLength: 1000 } };
  const ask = (extra: Record<string, unknown>) => ({ model: 'emu-chat', messages: [{ role: 'user', content: 'call make_list please' }], ...extra });

  it(`a schema asking for more than ${MAX_SCHEMA_OUTPUT_CHARS / MB} MB of JSON is 413 naming response_format, and other requests are answered`, async () => {
    const [answer, listing] = await Promise.all([
      call(s.emu, 'POST', '/v3/chat/completions', ask({ response_format: { type: 'json_schema', json_schema: { name: 'bomb', schema: { type: 'object', properties: { items: bomb } } } } })),
      list(s.emu, '{dev}'),
    ]);
    assertErrorBody(answer, 413, 'response_format');
    assert.match(answer.json.message, /over the emulator's limit .* lower minItems or minLength/);
    assert.equal(listing.status, 200);
    const hugeString = await call(
      s.emu,
      'POST',
      '/v3/chat/completions',
      ask({ response_format: { type: 'json_schema', json_schema: { type: 'object', properties: { s: { type: 'string', minLength: 1e9 } } } } }),
    );
    assertErrorBody(hugeString, 413, 'response_format');
  });

  it('tool parameters are bounded the same way (413 naming tools)', async () => {
    const answer = await call(
      s.emu,
      'POST',
      '/v3/chat/completions',
      ask({ tools: [{ type: 'function', function: { name: 'make_list', parameters: { type: 'object', properties: { items: bomb } } } }] }),
    );
    assertErrorBody(answer, 413, 'tools');
  });
});

describe('emulator: errors that name the real problem', () => {
  const s = useFreshEmulator();

  it(`more than ${MAX_UPLOAD_FIELDS} multipart fields is 413 saying so (not "volume is required"), and nothing is stored`, async () => {
    const form = new FormData();
    for (let i = 0; i < MAX_UPLOAD_FIELDS + 5; i++) form.append(`extra${i}`, 'x');
    form.append('volume', 'fields');
    form.append('embedding', 'emu-embed');
    form.append('file', new Blob(['a']), 'a.txt');
    const answer = await call(s.emu, 'POST', FILES, form);
    assertErrorBody(answer, 413);
    assert.match(answer.json.message, new RegExp(`more than ${MAX_UPLOAD_FIELDS} form fields`));
    assertErrorBody(await list(s.emu, 'fields'), 404, 'volume');
  });

  it('a malformed Authorization header is named as malformed (not "missing API key"), never echoing the key', async () => {
    const extra = await call(s.emu, 'GET', FILES, { volume: '{dev}' }, { key: null, headers: { Authorization: `Bearer ${s.emu.apiKey} extra` } });
    assertErrorBody(extra, 401, null);
    assert.match(extra.json.message, /malformed Authorization header: expected "Bearer <key>", got 2 words after Bearer/);
    assert.ok(!extra.text.includes(s.emu.apiKey));
    const bare = await call(s.emu, 'GET', FILES, { volume: '{dev}' }, { key: null, headers: { Authorization: 'Bearer' } });
    assert.match(bare.json.message, /"Bearer" without a key/);
    const basic = await call(s.emu, 'GET', FILES, { volume: '{dev}' }, { key: null, headers: { Authorization: `Basic ${s.emu.apiKey}` } });
    assert.match(basic.json.message, /the scheme must be Bearer, got "Basic"/);
    const missing = await call(s.emu, 'GET', FILES, { volume: '{dev}' }, { key: null });
    assert.match(missing.json.message, /missing API key/);
  });

  it('a field of the wrong JSON type is named with the type it got (model: 5 is not "model is required")', async () => {
    const completion = await call(s.emu, 'POST', '/v3/chat/completions', { model: 5, messages: [{ role: 'user', content: 'hi' }] });
    assertErrorBody(completion, 400, 'model');
    assert.equal(completion.json.message, 'model must be a model id (string), got number');
    const agent = await call(s.emu, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'hi', context: { model: ['emu-chat'] } });
    assertErrorBody(agent, 400, 'context.model');
    assert.equal(agent.json.message, 'context.model must be a model id (string), got an array');
    const agentId = await call(s.emu, 'POST', '/v1/apps/chat-messages', { agent_id: 7, query: 'hi', context: { model: 'emu-chat' } });
    assert.equal(agentId.json.message, 'agent_id must be a string, got number');
    const context = await call(s.emu, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'hi', context: 'emu-chat' });
    assertErrorBody(context, 400, 'context');
    const absent = await call(s.emu, 'POST', '/v3/chat/completions', { messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(absent.json.message, 'model is required');
  });

  it('application/json-patch+json (and other +json or json-like types) is 415, as D4 decides', async () => {
    const body = JSON.stringify({ model: 'emu-chat', messages: [{ role: 'user', content: 'hi' }] });
    for (const type of ['application/json-patch+json', 'application/jsonl', 'application/merge-patch+json']) {
      const answer = await call(s.emu, 'POST', '/v3/chat/completions', body, { headers: { 'Content-Type': type } });
      assertErrorBody(answer, 415, null);
      assert.match(answer.json.message, new RegExp(`got ${type.replace(/[+.]/g, '\\$&')}`));
    }
    const ok = await call(s.emu, 'POST', '/v3/chat/completions', body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    assert.equal(ok.status, 200, ok.text);
  });
});

describe('emulator: loopback Host names only (DNS rebinding guard)', () => {
  const s = useFreshEmulator();

  /** Sends a listing with a chosen Host header (fetch and undici do not let a test set Host). */
  function withHost(host: string | undefined): Promise<{ status: number; body: string }> {
    const url = new URL(s.emu.url);
    return new Promise((resolve, reject) => {
      const body = JSON.stringify({ volume: '{dev}' });
      const headers: Record<string, string> = { Authorization: `Bearer ${s.emu.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) };
      if (host !== undefined) headers.Host = host;
      const req = httpRequest({ host: url.hostname, port: url.port, path: FILES, method: 'GET', headers, setHost: false }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('a request whose Host is not a loopback name or address is refused with 421 naming the Host', async () => {
    for (const host of ['attacker.example', 'attacker.example:8787', '127.0.0.1.attacker.example', 'localhost.attacker.example', '10.0.0.7', '[::2]:80']) {
      const answer = await withHost(host);
      assert.equal(answer.status, 421, `${host}: ${answer.body}`);
      assert.match(JSON.parse(answer.body).message, /only answers requests addressed to a loopback host/);
    }
    assert.equal((await withHost(undefined)).status, 400, 'no Host at all: Node refuses an HTTP/1.1 request without Host');
  });

  it('loopback names and addresses, with or without a port, are served', async () => {
    const port = new URL(s.emu.url).port;
    for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'LOCALHOST', 'app.localhost', `[::1]:${port}`, '127.1.2.3']) {
      const answer = await withHost(host);
      assert.equal(answer.status, 200, `${host}: ${answer.body}`);
    }
  });
});
