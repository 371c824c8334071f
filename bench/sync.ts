// Folder sync (issue 16), against the emulator in its own process (so only the sync's own
// memory is measured here):
// 1. A 5,000-file folder in sync except 50 edited files: the sync makes only the listing
//    requests, 50 uploads and 50 deletions (older copies), and takes ≤ 5% of a full
//    re-upload of the folder (every file through the same client) measured in the same run.
// 2. Peak RSS growth of that incremental sync of 5,000 files < 64 MiB.
// 3. Hashing 1 GiB of unchanged files a second time is skipped by size+mtime: the second
//    pass costs < 5% of the first pass's hashing (same scan + hash code as the plan).
// Run: npx tsx bench/sync.ts   (needs about 1.2 GiB of free space in the temp folder)
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KsmClient } from '../src/api/client';
import type { KsmService } from '../src/api/service';
import { DEFAULT_API_KEY } from '../emulator/server';
import { applySync } from '../src/sync/core/apply';
import pMap from 'p-map';
import { contentHash, type HashStats } from '../src/sync/core/hashing';
import { FileManifestStore, type ManifestEntry } from '../src/sync/core/manifest';
import { planSync } from '../src/sync/core/plan';
import { scanFolder } from '../src/sync/core/scan';
import { startEmulatorProcess } from './support/emulatorProcess';

const FILES = Number(process.env.BENCH_SYNC_FILES ?? 5000);
const EDITED = 50;
const HASH_BYTES = Number(process.env.BENCH_SYNC_HASH_BYTES ?? 1024 ** 3);
const MiB = 1024 * 1024;

/** Counts what the sync asks of the service: requests by kind, files uploaded, uuids deleted. */
function counting(service: KsmService) {
  const counts = { listRequests: 0, uploadRequests: 0, uploadedFiles: 0, deleteRequests: 0, deletedFiles: 0, other: 0 };
  const wrapped: KsmService = {
    uploadFiles: (request, options) => {
      counts.uploadRequests++;
      counts.uploadedFiles += request.files.length;
      return service.uploadFiles(request, options);
    },
    listFiles: (request, options) => {
      counts.listRequests++;
      return service.listFiles(request, options);
    },
    async *listAllFiles(volume, options) {
      // Pages through listFiles above, so each page is counted as one request.
      const limit = options?.pageSize ?? 100;
      for (let offset = 0; ;) {
        const page = await wrapped.listFiles({ volume, offset, limit }, options);
        yield* page.files;
        offset += page.files.length;
        if (page.files.length === 0 || offset >= page.total) return;
      }
    },
    deleteFiles: (request, options) => {
      counts.deleteRequests++;
      counts.deletedFiles += request.uuids.length;
      return service.deleteFiles(request, options);
    },
    createChatCompletion: (...a) => (counts.other++, service.createChatCompletion(...a)),
    streamChatCompletion: (...a) => (counts.other++, service.streamChatCompletion(...a)),
    sendAgentMessage: (...a) => (counts.other++, service.sendAgentMessage(...a)),
    streamAgentMessage: (...a) => (counts.other++, service.streamAgentMessage(...a)),
  };
  return { counts, service: wrapped };
}

async function syncOnce(service: KsmService, folder: string, volume: string, manifestPath: string) {
  const store = new FileManifestStore(manifestPath);
  const started = performance.now();
  const plan = await planSync({ folder, volume, service, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: true });
  const planMs = performance.now() - started;
  const summary = await applySync(plan, { service, store, embedding: 'emu-embed', doChunking: 0 });
  if (summary.failed) throw new Error(`${summary.failed} files failed: ${JSON.stringify(summary.results.find((r) => r.action === 'failed'))}`);
  return { ms: performance.now() - started, planMs, plan, summary };
}

async function incrementalBench(url: string, work: string): Promise<boolean> {
  const folder = join(work, 'docs');
  for (let i = 0; i < FILES; i++) {
    const dir = join(folder, `part-${Math.floor(i / 250)}`);
    if (i % 250 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `note-${i}.md`), `# Note ${i}\n${'Lorem ipsum dolor sit amet. '.repeat(20 + (i % 17))}\n`);
  }
  const client = new KsmClient({ baseUrl: url, apiKey: async () => DEFAULT_API_KEY, timeoutMs: 600_000 });
  await syncOnce(client, folder, 'bench-sync', join(work, 'manifest.json'));
  for (let i = 0; i < FILES; i += FILES / EDITED) writeFileSync(join(folder, `part-${Math.floor(i / 250)}`, `note-${i}.md`), `# Note ${i}, edited\n`);

  // Baseline: the whole folder uploaded again, as a plain folder upload would (same client, same batches).
  const scan = await scanFolder(folder, { excludeGlobs: [], maxFileSizeBytes: 0 });
  const fullStarted = performance.now();
  const results = await client.uploadFiles({ volume: 'bench-full', embedding: 'emu-embed', doChunking: 0, files: scan.files.map((f) => ({ path: f.path, filename: f.rel.split('/').join('__') })) });
  const full = { ms: performance.now() - fullStarted };
  if (results.some((r) => !r.ok)) throw new Error('the baseline upload failed');

  const { counts, service } = counting(client);
  globalThis.gc?.();
  const startRss = process.memoryUsage.rss();
  let peak = startRss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const incremental = await syncOnce(service, folder, 'bench-sync', join(work, 'manifest.json'));
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());

  const expectedLists = Math.ceil((FILES + 1) / 1000);
  const onlyNeeded = counts.uploadedFiles === EDITED && counts.deletedFiles === EDITED && counts.other === 0 && counts.listRequests <= expectedLists;
  const ratio = incremental.ms / full.ms;
  const growth = peak - startRss;
  console.log(
    `sync-requests: ${counts.listRequests} listing requests, ${counts.uploadedFiles} files uploaded in ${counts.uploadRequests} requests, ${counts.deletedFiles} deleted in ${counts.deleteRequests} requests, ${counts.other} other; target ≤${expectedLists} listings + ${EDITED} uploads + ${EDITED} deletes ${onlyNeeded ? 'PASS' : 'FAIL'}`,
  );
  console.log(
    `sync-incremental-time: ${incremental.ms.toFixed(0)} ms (ratio ${ratio.toFixed(3)} vs baseline ${full.ms.toFixed(0)} ms, a full re-upload of the ${FILES} files) target ratio <= 0.05 ${ratio <= 0.05 ? 'PASS' : 'FAIL'} (plan ${incremental.planMs.toFixed(0)} ms: listing ${incremental.plan.timings.listMs.toFixed(0)}, scan ${incremental.plan.timings.scanMs.toFixed(0)}, hashing ${incremental.plan.hashing.hashed} files ${incremental.plan.timings.hashMs.toFixed(0)})`,
  );
  console.log(`sync-memory: peak RSS growth ${(growth / MiB).toFixed(1)} MiB for ${FILES} files target < 64 MiB ${growth < 64 * MiB ? 'PASS' : 'FAIL'}`);
  return onlyNeeded && ratio <= 0.05 && growth < 64 * MiB;
}

async function hashingBench(work: string): Promise<boolean> {
  const folder = join(work, 'large');
  mkdirSync(folder);
  const fileSize = 16 * MiB;
  const block = Buffer.alloc(MiB);
  for (let f = 0; f * fileSize < HASH_BYTES; f++) {
    for (let i = 0; i < block.length; i++) block[i] = 32 + ((i * 31 + f) % 90); // printable: passes the readable-files rule
    const fd = openSync(join(folder, `chunk-${f}.txt`), 'w');
    for (let written = 0; written < Math.min(fileSize, HASH_BYTES - f * fileSize); written += MiB) writeSync(fd, block);
    closeSync(fd);
  }
  const known = new Map<string, ManifestEntry>();
  const pass = async (): Promise<{ ms: number; stats: HashStats }> => {
    const stats: HashStats = { hashed: 0, hashedBytes: 0, skipped: 0 };
    const started = performance.now();
    const scan = await scanFolder(folder, { excludeGlobs: [], maxFileSizeBytes: 0 });
    const hashes = await pMap(scan.files, (file) => contentHash(file, known.get(file.rel), stats), { concurrency: 4 });
    const ms = performance.now() - started;
    scan.files.forEach((file, i) => known.set(file.rel, { sha256: hashes[i], size: file.size, mtimeMs: file.mtimeMs, uuid: '-', remoteName: file.rel }));
    return { ms, stats };
  };
  const first = await pass();
  const second = await pass();
  const ratio = second.ms / first.ms;
  const pass_ = ratio < 0.05 && second.stats.hashed === 0;
  console.log(
    `sync-rehash-skip: ${second.ms.toFixed(0)} ms for ${(first.stats.hashedBytes / MiB).toFixed(0)} MiB unchanged (ratio ${ratio.toFixed(3)} vs baseline ${first.ms.toFixed(0)} ms first hashing; ${second.stats.hashed} re-hashed) target ratio < 0.05 ${pass_ ? 'PASS' : 'FAIL'}`,
  );
  return pass_;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ksm-bench-sync-'));
  const emulator = await startEmulatorProcess(join(work, 'data'));
  try {
    const a = await incrementalBench(emulator.url, work);
    const b = await hashingBench(work);
    process.exitCode = a && b ? 0 : 1;
  } finally {
    emulator.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
