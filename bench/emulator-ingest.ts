// Ingest throughput of the emulator (issue 3): MB of text per second through filter +
// chunk + embed, as a ratio against reading the same bytes from disk in the same run; and
// the whole path through the server (multipart upload streamed to disk, then processing to
// `done` with stepMs 0) against the same baseline.
import './support/loadStamp';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embed } from '../emulator/embedder';
import { extractAndChunk } from '../emulator/pipeline';
import { startEmulator } from '../emulator/server';

const MEGABYTES = Number(process.env.BENCH_INGEST_MB ?? 8);
const work = mkdtempSync(join(tmpdir(), 'ksm-bench-ingest-'));

function sampleText(bytes: number): string {
  const vocabulary = 'the service stores files in volumes and splits their text into overlapping chunks for retrieval by cosine similarity over hashed features'.split(' ');
  const words: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const word = vocabulary[(i * 7919) % vocabulary.length] + (i % 13 === 0 ? `${i % 997}` : '');
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

async function seconds(run: () => Promise<unknown> | unknown): Promise<number> {
  const started = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function main(): Promise<void> {
  const path = join(work, 'sample.txt');
  writeFileSync(path, sampleText(MEGABYTES * 1024 * 1024));
  const megabytes = MEGABYTES;

  // Baseline: read the bytes and decode them (the least any ingest must do). Best of 3.
  const reads: number[] = [];
  for (let i = 0; i < 3; i++) reads.push(await seconds(() => readFileSync(path, 'utf8')));
  const baseline = Math.min(...reads);

  let chunkCount = 0;
  const pipeline = await seconds(async () => {
    const result = await extractAndChunk(path, 'sample.txt');
    if (!('chunks' in result)) throw new Error(result.unreadable);
    chunkCount = result.chunks.length;
    for (const chunk of result.chunks) embed(chunk);
  });

  const emulator = await startEmulator({ port: 0, dataDir: join(work, 'data'), stepMs: 0 });
  // A running service: its processing worker is loaded (by a first small file) before the clock starts.
  const warmUp = new FormData();
  warmUp.append('volume', 'warm');
  warmUp.append('embedding', 'emu-embed');
  warmUp.append('do_chunking', '1');
  warmUp.append('file', new Blob(['warm up']), 'warm.txt');
  await fetch(`${emulator.url}/ksm/rag/v5/files`, { method: 'POST', headers: { Authorization: `Bearer ${emulator.apiKey}` }, body: warmUp });
  await emulator.waitForIdle();
  const server = await seconds(async () => {
    const form = new FormData();
    form.append('volume', 'bench');
    form.append('embedding', 'emu-embed');
    form.append('do_chunking', '1');
    form.append('file', new Blob([readFileSync(path)]), 'sample.txt');
    const answer = await fetch(`${emulator.url}/ksm/rag/v5/files`, { method: 'POST', headers: { Authorization: `Bearer ${emulator.apiKey}` }, body: form });
    if (answer.status !== 200) throw new Error(`upload answered ${answer.status}`);
    await emulator.waitForIdle();
  });
  await emulator.close();

  const rate = (s: number) => (megabytes / s).toFixed(1);
  console.log(`text: ${megabytes} MB, ${chunkCount} chunks`);
  console.log(`baseline read from disk:          ${rate(baseline)} MB/s`);
  console.log(`filter + chunk + embed:           ${rate(pipeline)} MB/s  ${(baseline / pipeline).toFixed(3)}x the disk-read rate`);
  console.log(`upload + process to done (HTTP):  ${rate(server)} MB/s  ${(baseline / server).toFixed(3)}x the disk-read rate`);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
