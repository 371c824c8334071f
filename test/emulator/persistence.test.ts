// State survives a restart; a crash or a cut connection mid-upload loses nothing earlier
// and leaves nothing half-listed.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, STORE_FILE } from '../../emulator/database';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { assertErrorBody, call, list, readSse, upload, waitForStatus } from './support';

const agentAsk = (emu: RunningEmulator, query: string, threadId?: string) =>
  call(emu, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query, thread_id: threadId ?? null, stream: false, context: { model: 'emu-chat' } });

/** A multipart body sent slowly: the first file whole, then part of a second, then it stalls. */
function stallingUpload(url: string, key: string): { response: Promise<Response>; abort: AbortController; sentSecondPart: Promise<void> } {
  const abort = new AbortController();
  let markSent!: () => void;
  const sentSecondPart = new Promise<void>((resolve) => (markSent = resolve));
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    async start(controller) {
      controller.enqueue(encoder.encode('--B\r\nContent-Disposition: form-data; name="volume"\r\n\r\ncrash\r\n--B\r\nContent-Disposition: form-data; name="embedding"\r\n\r\nemu-embed\r\n'));
      controller.enqueue(encoder.encode('--B\r\nContent-Disposition: form-data; name="file"; filename="new-1.txt"\r\n\r\nwhole first file\r\n'));
      controller.enqueue(encoder.encode('--B\r\nContent-Disposition: form-data; name="file"; filename="new-2.txt"\r\n\r\n'));
      controller.enqueue(encoder.encode('half of the second '.repeat(2000)));
      markSent();
      // never closes: the server is killed (or the client aborts) while it waits
    },
  });
  const response = fetch(`${url}/ksm/rag/v5/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'multipart/form-data; boundary=B' },
    body,
    duplex: 'half',
    signal: abort.signal,
  } as RequestInit);
  response.catch(() => undefined);
  return { response, abort, sentSecondPart };
}

/**
 * Resolves once the emulator is staging the stalled upload's two files on disk, so a cut that
 * follows really lands mid-upload (a fixed sleep could end before the server got there, and
 * the test would then prove nothing). Polls the folder because the emulator may be another process.
 */
async function untilBothPartsStaged(dataDir: string): Promise<void> {
  const tmp = join(dataDir, 'tmp');
  while (!existsSync(tmp) || readdirSync(tmp).length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** What the store holds for one file, read with a second (read-only) SQLite connection. */
function storeCounts(dataDir: string, uuid: string): { files: number; chunks: number; vectors: number } {
  const db = connect(join(dataDir, STORE_FILE), { readonly: true });
  try {
    const files = (db.prepare('SELECT count(*) AS n FROM files WHERE uuid = ?').get(uuid) as { n: number }).n;
    const { chunks, vectors } = db.prepare('SELECT count(*) AS chunks, count(vector) AS vectors FROM chunks WHERE file_uuid = ?').get(uuid) as { chunks: number; vectors: number };
    return { files, chunks, vectors };
  } finally {
    db.close();
  }
}

function contentFiles(dataDir: string, volumeDir: string): string[] {
  return readdirSync(join(dataDir, 'volumes', volumeDir, 'content'));
}

describe('emulator: persistence', () => {
  let dir: string;
  let dataDir: string;
  const open: RunningEmulator[] = [];
  const start = async (stepMs = 1) => {
    const emu = await startEmulator({ port: 0, dataDir, stepMs, tokenDelayMs: 0, testControls: true });
    open.push(emu);
    return emu;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-emu-persist-'));
    dataDir = join(dir, 'data');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((emu) => emu.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('volumes, files, statuses, chunks, vectors and agent threads survive stop and start', async () => {
    const first = await start();
    const infos = await upload(
      first,
      '{dev}',
      [
        { name: 'tides.txt', content: 'Spring tides happen at new moon and full moon.' },
        { name: 'raw.bin', content: 'kept as is' },
      ],
      1,
    );
    await upload(first, 'team', [{ name: 'plan.md', content: '# Plan\nShip the emulator.' }], 0);
    await first.waitForIdle();
    const thread = await agentAsk(first, 'when do spring tides happen?');
    assert.equal(thread.json.citations[0].filename, 'tides.txt');
    const listedBefore = (await list(first, '{dev}')).json;
    await first.close();

    const second = await start();
    assert.deepEqual((await list(second, '{dev}')).json, listedBefore);
    assert.deepEqual(
      (await list(second, 'team')).json.infoz.map((f: any) => [f.filename, f.status]),
      [['plan.md', 'na']],
    );
    const again = await agentAsk(second, 'and what about the full moon?', thread.json.thread_id);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.thread_id, thread.json.thread_id);
    assert.match(again.json.content, /Turn 2/);
    assert.match(again.json.content, /when do spring tides happen/);
    assert.equal(again.json.citations[0].file_id, infos[0].uuid, 'vectors were reloaded');
  });

  it('close() waits for a streamed agent turn, which is saved after done goes out, to reach the disk', async () => {
    const first = await start();
    const { messages } = await readSse(first, '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'remember the blue kite', context: { model: 'emu-chat' } });
    assert.equal(messages[messages.length - 1].event, 'done');
    const threadId = JSON.parse(messages[0].data).thread_id;
    await first.close();

    const second = await start();
    const again = await agentAsk(second, 'what did I mention?', threadId);
    assert.equal(again.status, 200, again.text);
    assert.match(again.json.content, /Turn 2/);
    assert.match(again.json.content, /remember the blue kite/);
  });

  it("delete removes a file's record, bytes, chunks and vectors (store and disk), and retrieval stops finding it (D11)", async () => {
    const emu = await start();
    const [info] = await upload(emu, 'gone', [{ name: 'comet.txt', content: 'Halley comet returns every seventy six years.' }], 1);
    await emu.waitForIdle();
    const onDisk = () => contentFiles(dataDir, 'named_gone');
    const inStore = () => storeCounts(dataDir, info.uuid);
    assert.deepEqual(onDisk(), [info.uuid]);
    assert.deepEqual(inStore(), { files: 1, chunks: 1, vectors: 1 });
    const ask = () => call(emu, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query: 'Halley comet', stream: false, context: { model: 'emu-chat', volumes: ['gone'] } });
    assert.equal((await ask()).json.citations[0].file_id, info.uuid);
    assert.equal((await call(emu, 'DELETE', '/ksm/rag/v5/files', { volume: 'gone', uuidz: [info.uuid] })).status, 200);
    assert.deepEqual(onDisk(), []);
    assert.deepEqual(inStore(), { files: 0, chunks: 0, vectors: 0 });
    assert.deepEqual((await ask()).json.citations, []);
  });

  it('a file still processing at shutdown resumes after the restart and ends done', async () => {
    const slow = await start(60_000);
    const [info] = await upload(slow, 'resume', [{ name: 'r.txt', content: 'resumable words' }], 1);
    await slow.close();
    const fast = await start(1);
    const final = await waitForStatus(fast, 'resume', info.uuid, ['done', 'na']);
    assert.equal(final.status, 'done');
  });

  it('a connection reset in the middle of an upload body stores nothing of it and keeps earlier files', async () => {
    const emu = await start();
    await upload(emu, 'crash', [{ name: 'earlier.txt', content: 'earlier file' }], 0);
    emu.faults.add({ kind: 'reset', path: '/ksm/rag/v5/files', method: 'POST', afterBytes: 300 });
    const form = new FormData();
    form.append('volume', 'crash');
    form.append('embedding', 'emu-embed');
    form.append('file', new Blob(['a'.repeat(200)]), 'new-a.txt');
    form.append('file', new Blob(['b'.repeat(5000)]), 'new-b.txt');
    await assert.rejects(call(emu, 'POST', '/ksm/rag/v5/files', form));
    assert.deepEqual(
      (await list(emu, 'crash')).json.infoz.map((f: any) => f.filename),
      ['earlier.txt'],
    );
    assert.equal(contentFiles(dataDir, 'named_crash').length, 1);
    assert.deepEqual(readdirSync(join(dataDir, 'tmp')), [], 'temp files of the cut upload are gone');
  });

  it('a client that aborts mid-upload is counted, announced, and leaves nothing', async () => {
    const emu = await start();
    const announced = once(emu.events, 'upload-aborted');
    const { abort, sentSecondPart } = stallingUpload(emu.url, emu.apiKey);
    await sentSecondPart;
    await untilBothPartsStaged(dataDir);
    abort.abort();
    const [event] = await announced;
    assert.equal(event.path, '/ksm/rag/v5/files');
    assert.equal(emu.stats.abortedUploads, 1);
    assertErrorBody(await list(emu, 'crash'), 404, 'volume');
  });

  it('SIGKILL of the emulator process mid-upload: after restart earlier files are listed whole, nothing else, no orphans', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/cli.ts', '--port', '0', '--data-dir', dataDir, '--step-ms', '1', '--quiet'], {
      cwd: join(__dirname, '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    while (!/listening on (http:\S+)/.test(output)) await once(child.stdout, 'data');
    const url = /listening on (http:\S+)/.exec(output)![1];
    const key = 'ksm-emulator-key';
    const first = await fetch(`${url}/ksm/rag/v5/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: (() => {
        const form = new FormData();
        form.append('volume', 'crash');
        form.append('embedding', 'emu-embed');
        form.append('do_chunking', '1');
        form.append('file', new Blob(['the earlier file survives the crash']), 'earlier.txt');
        return form;
      })(),
    });
    assert.equal(first.status, 200);
    const { sentSecondPart } = stallingUpload(url, key);
    await sentSecondPart;
    await untilBothPartsStaged(dataDir);
    child.kill('SIGKILL');
    await once(child, 'exit');

    const restarted = await start();
    await restarted.waitForIdle();
    const listed = (await list(restarted, 'crash')).json;
    assert.deepEqual(
      listed.infoz.map((f: any) => [f.filename, f.status, f.filesize]),
      [['earlier.txt', 'done', 35]],
    );
    assert.equal(contentFiles(dataDir, 'named_crash').length, 1, 'no orphan content');
    assert.deepEqual(readdirSync(join(dataDir, 'tmp')), []);
  });
});
