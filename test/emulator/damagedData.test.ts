// Issue 12: what a start does with what it finds on disk. A damaged store is named,
// quarantined with the bytes it described, and reported; a folder in the older JSON layout
// is imported (damaged pieces quarantined and named, nothing deleted); a file that keeps
// interrupting its processing is given up instead of crash-looping.
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, STORE_FILE } from '../../emulator/database';
import { embed } from '../../emulator/embedder';
import { MAX_PROCESSING_ATTEMPTS } from '../../emulator/limits';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/server';
import { call, list, upload, waitForStatus } from './support';

describe('emulator: damaged data, the older layout, and files that keep failing', () => {
  let dir: string;
  let dataDir: string;
  const open: RunningEmulator[] = [];
  const start = async (options: EmulatorOptions = {}) => {
    const emu = await startEmulator({ port: 0, dataDir, stepMs: 1, tokenDelayMs: 0, warn: () => undefined, ...options });
    open.push(emu);
    return emu;
  };
  const stop = async (emu: RunningEmulator) => {
    open.splice(open.indexOf(emu), 1);
    await emu.close();
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-emu-damaged-'));
    dataDir = join(dir, 'data');
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((emu) => emu.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const quarantined = () => readdirSync(join(dataDir, 'quarantine')).map((name) => join(dataDir, 'quarantine', name));

  it('a damaged store is named in the report, moved to quarantine/ with the uploaded bytes, and the emulator starts empty', async () => {
    const first = await start();
    const [info] = await upload(first, 'keep', [{ name: 'precious.txt', content: 'precious bytes' }], 0);
    await stop(first);
    const storePath = join(dataDir, STORE_FILE);
    const garbage = Buffer.from('this is not a SQLite database, just damaged bytes '.repeat(200));
    writeFileSync(storePath, garbage);
    rmSync(`${storePath}-wal`, { force: true });
    rmSync(`${storePath}-shm`, { force: true });

    const second = await start();
    assert.equal(second.warnings.length, 1);
    assert.ok(second.warnings[0].includes(storePath), `the report names the file: ${second.warnings[0]}`);
    assert.match(second.warnings[0], /is damaged .*moved, with the uploaded files it listed, to .*quarantine.*Nothing was deleted/);
    const [folder] = quarantined();
    assert.deepEqual(readFileSync(join(folder, STORE_FILE)), garbage, 'the damaged store is kept byte for byte');
    assert.equal(readFileSync(join(folder, 'volumes', 'named_keep', 'content', info.uuid), 'utf8'), 'precious bytes', "the user's bytes are kept");
    assert.equal((await list(second, 'keep')).status, 404);
    await upload(second, 'fresh', [{ name: 'new.txt', content: 'works again' }], 0);
    assert.equal((await list(second, 'fresh')).json.total, 1);
  });

  it('a folder in the older JSON layout is imported once (records, statuses, chunks, vectors, threads); damaged pieces are quarantined and named', async () => {
    const goodUuid = '11111111-1111-4111-8111-111111111111';
    const damagedUuid = '22222222-2222-4222-8222-222222222222';
    const docs = join(dataDir, 'volumes', 'named_docs');
    for (const sub of ['records', 'content', 'chunks']) mkdirSync(join(docs, sub), { recursive: true });
    writeFileSync(join(docs, 'volume.json'), JSON.stringify({ name: 'docs' }));
    const text = 'Spring tides happen at new moon and full moon.';
    writeFileSync(join(docs, 'content', goodUuid), text);
    writeFileSync(
      join(docs, 'records', `${goodUuid}.json`),
      JSON.stringify({ uuid: goodUuid, filename: 'tides.txt', filesize: text.length, date: '20250101000000', seq: 7, status: 'done', volume: 'docs', embedding: 'emu-embed', doChunking: 1 }),
    );
    writeFileSync(join(docs, 'chunks', `${goodUuid}.json`), JSON.stringify({ texts: [text], vectors: true }));
    writeFileSync(join(docs, 'chunks', `${goodUuid}.vec`), Buffer.from(embed(text).buffer));
    writeFileSync(join(docs, 'content', damagedUuid), 'bytes of a file whose record is damaged');
    writeFileSync(join(docs, 'records', `${damagedUuid}.json`), '{"uuid": "2222');
    const broken = join(dataDir, 'volumes', 'named_broken');
    mkdirSync(join(broken, 'content'), { recursive: true });
    writeFileSync(join(broken, 'volume.json'), '{ not json');
    writeFileSync(join(broken, 'content', 'abc'), 'bytes of a volume whose volume.json is damaged');
    mkdirSync(join(dataDir, 'threads'));
    const threadId = `thr_${'a'.repeat(24)}`;
    writeFileSync(
      join(dataDir, 'threads', `${threadId}.json`),
      JSON.stringify({
        id: threadId,
        agentId: 'rag-agent',
        userId: 'dev',
        created: 1,
        turns: [{ messageId: 'm', query: 'remember the blue kite', answer: 'ok', reasoning: null, citations: [], tools: [], created: 1 }],
      }),
    );

    const emu = await start();
    const report = emu.warnings.join('\n');
    assert.ok(report.includes(join(broken, 'volume.json')), `names the damaged volume.json: ${report}`);
    assert.ok(report.includes(join(docs, 'records', `${damagedUuid}.json`)), `names the damaged record: ${report}`);
    assert.match(report, /imported 1 file record\(s\) and 1 thread\(s\) from the older JSON layout/);
    const [folder] = quarantined();
    assert.equal(readFileSync(join(folder, 'volumes', 'named_docs', 'content', damagedUuid), 'utf8'), 'bytes of a file whose record is damaged');
    assert.equal(readFileSync(join(folder, 'volumes', 'named_broken', 'content', 'abc'), 'utf8'), 'bytes of a volume whose volume.json is damaged');

    const listed = (await list(emu, 'docs')).json;
    assert.deepEqual(
      listed.infoz.map((f: any) => [f.uuid, f.filename, f.status]),
      [[goodUuid, 'tides.txt', 'done']],
    );
    const ask = (query: string, thread_id: string | null = null) =>
      call(emu, 'POST', '/v1/apps/chat-messages', { agent_id: 'rag-agent', query, thread_id, stream: false, context: { model: 'emu-chat', volumes: ['docs'] } });
    assert.equal((await ask('when do spring tides happen')).json.citations[0]?.file_id, goodUuid, 'imported vectors are searched');
    const again = await ask('what did I mention?', threadId);
    assert.equal(again.status, 200, again.text);
    assert.match(again.json.content, /Turn 2.*remember the blue kite/s);
    assert.ok(!existsSync(join(docs, 'records')), 'the old JSON files moved out of the way');
    assert.ok(readdirSync(join(dataDir, 'legacy-json')).length === 1, 'into legacy-json/<time>/');
    await upload(emu, 'docs', [{ name: 'after.txt', content: 'after the import' }], 0);
    assert.deepEqual(
      (await list(emu, 'docs')).json.infoz.map((f: any) => f.filename),
      ['tides.txt', 'after.txt'],
      'upload order continues after imported ones',
    );

    await stop(emu);
    const restarted = await start();
    assert.deepEqual(restarted.warnings, [], 'imported once: a restart reports nothing');
    assert.equal((await list(restarted, 'docs')).json.total, 2);
  });

  it(`a file whose processing was started ${MAX_PROCESSING_ATTEMPTS} times without finishing ends na instead of crash-looping, and stays na`, async () => {
    const slow = await start({ stepMs: 60_000 });
    const [info] = await upload(slow, 'loop', [{ name: 'crasher.txt', content: 'a file that took the emulator down each time' }]);
    await stop(slow);
    // As if three starts each died while this file was being processed.
    const db = connect(join(dataDir, STORE_FILE));
    db.prepare("UPDATE files SET status = 'waiting', attempts = ? WHERE uuid = ?").run(MAX_PROCESSING_ATTEMPTS, info.uuid);
    db.close();

    const emu = await start();
    const final = await waitForStatus(emu, 'loop', info.uuid, ['done', 'na']);
    assert.equal(final.status, 'na');
    assert.match(final.status_detail, new RegExp(`processing was started ${MAX_PROCESSING_ATTEMPTS} times without finishing .*given up`));
    await stop(emu);
    const again = await start();
    await again.waitForIdle();
    assert.deepEqual(
      (await list(again, 'loop')).json.infoz.map((f: any) => f.status),
      ['na'],
    );
  });

  it('a graceful stop while a file is processed does not count against it', async function () {
    this.timeout(120_000);
    const first = await start({ stepMs: 0 });
    const [info] = await upload(first, 'grace', [{ name: 'big.txt', content: Buffer.from('moon tide harbour '.repeat(700_000)) }]);
    const attempts = () => {
      const db = connect(join(dataDir, STORE_FILE), { readonly: true });
      try {
        return db.prepare('SELECT attempts, chunk_count FROM files WHERE uuid = ?').get(info.uuid) as { attempts: number; chunk_count: number | null };
      } finally {
        db.close();
      }
    };
    while (attempts().attempts === 0) await new Promise((resolve) => setTimeout(resolve, 5)); // a worker has the file
    assert.equal(attempts().chunk_count, null, 'still processing');
    await stop(first);
    assert.equal(attempts().attempts, 0);
    const second = await start();
    assert.equal((await waitForStatus(second, 'grace', info.uuid, ['done', 'na'])).status, 'done');
  });
});
