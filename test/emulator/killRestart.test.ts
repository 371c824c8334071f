// Issue 12 acceptance: kill -9 of the emulator process during concurrent multi-file uploads
// and agent streams, restart, repeat. Every upload is wholly present or wholly absent (and
// present when the client got its 200), every thread whose `done` the client saw is there
// with that turn, and nothing is orphaned (bytes without a record, chunks without a file,
// temp uploads, loose entries).
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, STORE_FILE } from '../../emulator/database';
import { startEmulator } from '../../emulator/server';
import { list } from './support';

const ROOT = join(__dirname, '..', '..');
const KEY = 'ksm-emulator-key';
const FILES_PER_UPLOAD = 6;
const ROUNDS = 3;

async function startCli(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/cli.ts', '--port', '0', '--data-dir', dataDir, '--step-ms', '1', '--token-delay-ms', '5', '--response-words', '30', '--quiet'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  while (!/listening on (http:\S+)/.test(output)) await once(child.stdout!, 'data');
  return { child, url: /listening on (http:\S+)/.exec(output)![1] };
}

function uploadBody(id: string): FormData {
  const form = new FormData();
  form.append('volume', 'kill');
  form.append('embedding', 'emu-embed');
  form.append('do_chunking', '1');
  for (let i = 0; i < FILES_PER_UPLOAD; i++) form.append('file', new Blob([`upload ${id} file ${i} about harbours and tides `.repeat(200 + i * 50)]), `${id}-${i}.txt`);
  return form;
}

/** One agent stream to its end; the thread id when `done` arrived whole, else undefined. */
async function agentTurn(url: string, threadId: string | null): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/apps/chat-messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ agent_id: 'rag-agent', query: 'what do the harbour files say?', thread_id: threadId, stream: true, context: { model: 'emu-chat', volumes: ['kill'] } }),
  });
  const text = await response.text(); // throws when the connection is cut
  const done = text.split('\n\n').find((block) => block.startsWith('event: done\n'));
  return done ? (JSON.parse(done.slice(done.indexOf('data: ') + 6)).thread_id as string) : undefined;
}

describe('emulator: kill -9 during uploads and agent streams, restart, repeat', () => {
  let dir: string;
  let running: ChildProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-emu-kill-'));
  });
  afterEach(() => {
    running?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${ROUNDS} kills: uploads all-or-nothing, acknowledged uploads and threads whose done was seen are kept, nothing orphaned`, async function () {
    this.timeout(300_000);
    const dataDir = join(dir, 'data');
    const acknowledged = new Set<string>();
    const attempted = new Set<string>();
    /** Turns the client saw end with `done`, per thread. */
    const confirmedTurns = new Map<string, number>();

    for (let round = 0; round < ROUNDS; round++) {
      const { child, url } = await startCli(dataDir);
      running = child;
      let stopping = false;
      let acknowledgedThisRound = 0;
      let turnsThisRound = 0;
      const uploader = async (worker: number) => {
        for (let n = 0; !stopping; n++) {
          const id = `r${round}w${worker}n${n}`;
          attempted.add(id);
          try {
            const response = await fetch(`${url}/ksm/rag/v5/files`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}` }, body: uploadBody(id) });
            const body = (await response.json()) as { infoz?: unknown[] };
            assert.equal(response.status, 200, JSON.stringify(body));
            assert.equal(body.infoz?.length, FILES_PER_UPLOAD);
            acknowledged.add(id);
            acknowledgedThisRound += 1;
          } catch (error) {
            if (!stopping) throw error;
          }
        }
      };
      const streamer = async () => {
        let threadId: string | null = null;
        while (!stopping) {
          try {
            const done = await agentTurn(url, threadId);
            if (!done) continue;
            threadId = done;
            confirmedTurns.set(done, (confirmedTurns.get(done) ?? 0) + 1);
            turnsThisRound += 1;
          } catch (error) {
            if (!stopping) throw error;
          }
        }
      };
      const clients = [uploader(0), uploader(1), uploader(2), streamer(), streamer()];
      // Kill once this round has real work behind it, at a moment the clients do not choose.
      while (acknowledgedThisRound < 2 + round || turnsThisRound < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
      stopping = true;
      child.kill('SIGKILL');
      await once(child, 'exit');
      running = undefined;
      await Promise.all(clients);
    }

    const emu = await startEmulator({ port: 0, dataDir, stepMs: 1, tokenDelayMs: 0 });
    try {
      await emu.waitForIdle();
      const listed: Array<{ uuid: string; filename: string; status: string }> = [];
      for (let offset = 0; ; offset += 1000) {
        const page = (await list(emu, 'kill', offset, 1000)).json;
        listed.push(...page.infoz);
        if (listed.length >= page.total) break;
      }
      const perUpload = new Map<string, number>();
      for (const file of listed) {
        const id = file.filename.replace(/-\d+\.txt$/, '');
        assert.ok(attempted.has(id), `${file.filename} belongs to an upload the test sent`);
        perUpload.set(id, (perUpload.get(id) ?? 0) + 1);
        assert.ok(file.status === 'done' || file.status === 'na', `${file.filename} ended processing (${file.status})`);
      }
      for (const [id, count] of perUpload) assert.equal(count, FILES_PER_UPLOAD, `upload ${id} is whole (${count} of ${FILES_PER_UPLOAD} files)`);
      for (const id of acknowledged) assert.ok(perUpload.has(id), `acknowledged upload ${id} is present`);
      assert.ok(acknowledged.size >= ROUNDS * 2, `uploads acknowledged: ${acknowledged.size}`);
      assert.ok(attempted.size > acknowledged.size, 'some uploads were cut by a kill');

      assert.ok(confirmedTurns.size > 0);
      for (const [threadId, turns] of confirmedTurns) {
        const thread = await emu.readThread(threadId);
        assert.ok(thread, `thread ${threadId} whose done was seen is present`);
        assert.ok(thread.turns.length >= turns, `thread ${threadId} keeps its ${turns} confirmed turn(s) (has ${thread.turns.length})`);
      }

      const contentDir = join(dataDir, 'volumes', 'named_kill', 'content');
      assert.deepEqual(readdirSync(contentDir).sort(), listed.map((file) => file.uuid).sort(), 'exactly the listed files have bytes on disk');
      assert.deepEqual(readdirSync(join(dataDir, 'tmp')), [], 'no temp uploads left');
      const db = connect(join(dataDir, STORE_FILE), { readonly: true });
      try {
        const orphanChunks = db.prepare('SELECT count(*) AS n FROM chunks WHERE file_uuid NOT IN (SELECT uuid FROM files)').get() as { n: number };
        assert.equal(orphanChunks.n, 0, 'no chunks without a file');
        const partial = db
          .prepare("SELECT count(*) AS n FROM files WHERE status = 'done' AND (chunk_count IS NULL OR chunk_count != (SELECT count(*) FROM chunks WHERE file_uuid = files.uuid))")
          .get() as { n: number };
        assert.equal(partial.n, 0, 'every done file has exactly its chunks');
        assert.equal((db.prepare('SELECT count(*) AS n FROM loose_content').get() as { n: number }).n, 0, 'no loose bytes noted');
        const orphanTurns = db.prepare('SELECT count(*) AS n FROM turns WHERE thread_id NOT IN (SELECT id FROM threads)').get() as { n: number };
        assert.equal(orphanTurns.n, 0);
      } finally {
        db.close();
      }
      assert.ok(!existsSync(join(dataDir, 'quarantine')), 'nothing was found damaged');
    } finally {
      await emu.close();
    }
  });
});
