// Paging a 20,000-file volume (issue 5): opening it makes one request, each "load more"
// one more, and the memory the listing model holds grows with what is loaded, not with
// `total`. The emulator runs in a child process so its own memory never enters the heap
// figures. Baselines come from the same run: heap per loaded page vs 1 page, and request
// time in the big volume vs a 50-file volume.
import './support/loadStamp';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KsmClient } from '../src/api/client';
import { VolumeListing } from '../src/volumes/core/volumeListing';

const FILES = Number(process.env.BENCH_VOLUME_FILES ?? 20_000);
const PAGE = 50;
const root = resolve(__dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'ksm-bench-volumes-'));

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function startEmulatorProcess(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/cli.ts', '--port', '0', '--data-dir', join(work, 'data'), '--step-ms', '0', '--test-controls', '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function requestCount(url: string): Promise<number> {
  const res = await fetch(`${url}/_emulator/stats`, { headers: { Authorization: 'Bearer ksm-emulator-key' } });
  return ((await res.json()) as { requests: number }).requests;
}

function heldBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function seed(client: KsmClient, volume: string, count: number): Promise<void> {
  const dir = join(work, volume);
  mkdirSync(dir, { recursive: true });
  const files = [];
  for (let i = 0; i < count; i++) {
    const path = join(dir, `note-${String(i).padStart(5, '0')}.txt`);
    writeFileSync(path, `n${i}`);
    files.push({ path });
  }
  const results = await client.uploadFiles({ volume, embedding: 'emu-embed', doChunking: 0, files }, { batch: { maxFiles: 1000, maxBytes: 64 * 1024 * 1024 } });
  const failed = results.filter((r) => !r.ok).length;
  if (failed) throw new Error(`${failed} of ${count} seed uploads failed`);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const emulator = await startEmulatorProcess();
  try {
    const client = new KsmClient({ baseUrl: emulator.url, apiKey: async () => 'ksm-emulator-key' });
    const seedStarted = performance.now();
    await seed(client, 'big', FILES);
    await seed(client, 'small', PAGE);
    console.log(`seeded ${FILES} + ${PAGE} files in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    // Requests: opening is one request, each "load more" one more.
    const before = await requestCount(emulator.url);
    const probe = new VolumeListing(
      () => client,
      'big',
      () => PAGE,
    );
    await probe.ensureLoaded();
    const afterOpen = await requestCount(emulator.url);
    await probe.loadMore();
    const afterMore = await requestCount(emulator.url);
    // (`/_emulator/stats` itself is not counted.)
    console.log(`requests to open the ${probe.total}-file volume: ${afterOpen - before}; per "load more": ${afterMore - afterOpen}`);
    if (afterOpen - before !== 1 || afterMore - afterOpen !== 1) throw new Error('opening or paging made more than one request');

    // Speed: a page of the big volume against a page of a 50-file volume, same run.
    const bigTimes: number[] = [];
    const smallTimes: number[] = [];
    for (let i = 0; i < 15; i++) {
      smallTimes.push(
        await timed(() =>
          new VolumeListing(
            () => client,
            'small',
            () => PAGE,
          ).ensureLoaded(),
        ),
      );
      bigTimes.push(
        await timed(() =>
          new VolumeListing(
            () => client,
            'big',
            () => PAGE,
          ).ensureLoaded(),
        ),
      );
    }
    const deepTimes: number[] = [];
    const deep = new VolumeListing(
      () => client,
      'big',
      () => PAGE,
    );
    await deep.ensureLoaded();
    for (let i = 0; i < 15; i++) deepTimes.push(await timed(() => deep.loadMore()));
    console.log(
      `open, median ms: 50-file volume ${median(smallTimes).toFixed(2)} (baseline), ${FILES}-file volume ${median(bigTimes).toFixed(2)}; ratio ${(median(bigTimes) / median(smallTimes)).toFixed(2)}`,
    );
    console.log(`"load more" median ms ${median(deepTimes).toFixed(2)}; ratio to the baseline open ${(median(deepTimes) / median(smallTimes)).toFixed(2)}`);

    // Memory held by the model: nothing loaded vs 1 page vs 10 pages.
    const listings: VolumeListing[] = [];
    const base = heldBytes();
    for (let i = 0; i < 5; i++) {
      const l = new VolumeListing(
        () => client,
        'big',
        () => PAGE,
      );
      await l.ensureLoaded();
      listings.push(l);
    }
    const onePage = (heldBytes() - base) / listings.length;
    for (const l of listings) for (let p = 1; p < 10; p++) await l.loadMore();
    const tenPages = (heldBytes() - base) / listings.length;
    const perFile = tenPages / (10 * PAGE);
    console.log(
      `heap held per listing: 1 page ${Math.round(onePage)} B, 10 pages ${Math.round(tenPages)} B; ratio 10/1 = ${(tenPages / onePage).toFixed(2)} (proportional to loaded files would be 10)`,
    );
    console.log(
      `≈ ${Math.round(perFile)} B per loaded file; held after 10 pages is ${((100 * tenPages) / (perFile * listings[0]!.total)).toFixed(1)} % of what all ${listings[0]!.total} files would take`,
    );
    if (listings.some((l) => l.visibleFiles.length !== 10 * PAGE)) throw new Error('a listing did not load 10 pages');
  } finally {
    emulator.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
