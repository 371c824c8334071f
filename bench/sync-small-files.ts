// Many small files (issue 21), against the emulator in its own process, every figure a ratio
// against a baseline measured in the same run:
// 1. First sync of 5,000 files of 1–4 KB with the built `ksm sync` ≤ 1.05× `ksm upload` of
//    the same folder, and ≤ 1.25× curl sending the same 250 requests of 20 files with the
//    same parallelism (`curl --parallel --parallel-max 3`). Each is run BENCH_ROUNDS times
//    (default 6), alternating, the best of each counting (a shared machine's noise only slows
//    runs: with two rounds a spike in both of one side's runs flipped the verdict from one
//    run of the bench to the next). The order of the three turns each round (curl, upload,
//    sync; then upload, sync, curl; …): with one order, sync always ran last, after two more
//    5,000-file runs had added to the emulator's store and to the disk's writeback.
// 2. The manifest's bytes written during a first sync ≤ 3× its final size (in process, so the
//    store can count them).
// 3. 50 edited of 5,000 ≤ 0.05× the first sync; a no-op re-sync ≤ 0.05× (same engine, in
//    process). Three rounds, each a first sync to a fresh volume and manifest, then 50 edits,
//    then nothing changed; the best of each figure counts, the baseline's too (a first sync
//    slowed by a spike made the ratios look better than they are).
// 1b. No target: a bare Node client (bench/support/bareNodeUploader.mjs: node:http, the same
//    requests, nothing else) against curl, alternating, best of BENCH_ROUNDS each: what any
//    Node client on this machine starts from, to read the curl target against.
// 1c. No target: Node's own start on this machine (`node -e 0`), and without
//    NODE_EXTRA_CA_CERTS when the environment sets it (Node 20 parses that file at every start).
// 4. No target: the service's share of the 50-edited re-sync (its listing and the 50 files'
//    upload requests alone, through the client, no engine), so a FAIL of 3 says how much of it
//    is the engine's own time.
// Run: npx tsx bench/sync-small-files.ts (BENCH_ENGINE_ONLY=1 skips part 1, the child processes and curl,
// while iterating on the engine; the default runs everything; BENCH_TIMELINE=1 adds part 1's
// request timeline per side, support/requestTimeline.ts). Where Linux's /proc is, part 1 also
// prints each side's client and emulator CPU (support/processCpu.ts): on 2 cores the two
// processes share the machine, so a side's wall time follows both.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pMap from 'p-map';
import { DEFAULT_API_KEY } from '../emulator/server';
import { KsmClient } from '../src/api/client';
import { applySync } from '../src/sync/core/apply';
import { FileManifestStore } from '../src/sync/core/manifest';
import { planSync } from '../src/sync/core/plan';
import { folderManifestPath } from '../src/sync/core/folderManifest';
import { startEmulatorProcess } from './support/emulatorProcess';
import { readProcessCpu, readTreeCpuMs } from './support/processCpu';
import { logLineCount, readRunTimeline, type RunTimeline } from './support/requestTimeline';

const FILES = Number(process.env.BENCH_SMALL_FILES ?? 5000);
const EDITED = 50;
const BATCH = 20;
const PARALLEL = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6); // a multiple of 3: each side runs first, second and last equally often
const ENGINE_ROUNDS = 3;
const root = resolve(__dirname, '..');

function timed(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) =>
    execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) =>
      error ? fail(new Error(`${file} ${args.slice(0, 3).join(' ')} failed: ${stderr}`)) : done(performance.now() - started),
    ),
  );
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ksm-bench-small-'));
  // BENCH_TIMELINE=1: the emulator logs every request, and part 1 prints where each side's time went.
  const timelineLog = process.env.BENCH_TIMELINE === '1' ? join(work, 'requests.log') : undefined;
  const emulator = await startEmulatorProcess(join(work, 'data'), [], { requestLog: timelineLog });
  try {
    const folder = join(work, 'docs');
    const rels: string[] = [];
    for (let i = 0; i < FILES; i++) {
      const dir = `part-${Math.floor(i / 250)}`;
      if (i % 250 === 0) mkdirSync(join(folder, dir), { recursive: true });
      const size = 1024 + ((i * 613) % 3072);
      writeFileSync(join(folder, dir, `note-${i}.md`), `# Note ${i}\n`.padEnd(size, 'lorem ipsum dolor sit amet '));
      rels.push(`${dir}/note-${i}.md`);
    }
    const env = { ...process.env, KSM_BASE_URL: emulator.url, KSM_API_KEY: DEFAULT_API_KEY, KSM_EMBEDDING_MODEL: 'emu-embed' };
    const ksm = [join(root, 'bin/ksm.js')];
    await timed(process.execPath, [...ksm, '--version'], env); // builds dist/cli.js if stale

    // curl: the same 250 requests of 20 files, 3 in flight.
    const curlConfig = (volume: string) => {
      const lines: string[] = [];
      for (let b = 0; b < rels.length; b += BATCH) {
        if (b) lines.push('next');
        lines.push(`url = "${emulator.url}/ksm/rag/v5/files"`, `header = "Authorization: Bearer ${DEFAULT_API_KEY}"`, 'output = "/dev/null"', 'silent', 'show-error', 'fail');
        lines.push(`form = "volume=${volume}"`, 'form = "embedding=emu-embed"', 'form = "do_chunking=0"');
        for (const rel of rels.slice(b, b + BATCH)) lines.push(`form = "file=@${join(folder, rel)};filename=${rel.split('/').join('__')}"`);
      }
      const path = join(work, `${volume}.curl`);
      writeFileSync(path, lines.join('\n') + '\n');
      return path;
    };
    // A warm-up, not timed: an emulator's first 5,000-file run was up to twice as slow as the
    // next ones (its processing worker starting, its code not yet compiled), and that run was
    // round 0's first side (part 1) or the engine's first baseline (BENCH_ENGINE_ONLY=1).
    await timed('curl', ['--parallel', '--parallel-max', String(PARALLEL), '-K', curlConfig('bench-warm-up')], env);
    const best = { curl: Infinity, upload: Infinity, sync: Infinity };
    const engineOnly = process.env.BENCH_ENGINE_ONLY === '1';
    const runs: Record<keyof typeof best, (round: number) => Promise<number>> = {
      curl: (round) => timed('curl', ['--parallel', '--parallel-max', String(PARALLEL), '-K', curlConfig(`bench-curl-${round}`)], env),
      upload: (round) => timed(process.execPath, [...ksm, 'upload', `bench-upload-${round}`, folder, '--chunking', '0', '--quiet', '--on-duplicate', 'keepBoth'], env),
      sync: async (round) => {
        const manifest = folderManifestPath(folder, emulator.url, `bench-sync-${round}`);
        rmSync(manifest, { force: true });
        try {
          return await timed(process.execPath, [...ksm, 'sync', folder, `bench-sync-${round}`, '--chunking', '0', '--quiet'], env);
        } finally {
          rmSync(manifest, { force: true });
        }
      },
    };
    const sides = Object.keys(runs) as Array<keyof typeof best>;
    const timelines: Record<keyof typeof best, RunTimeline[]> = { curl: [], upload: [], sync: [] };
    /** Each run's client CPU (what this process's reaped children gained) and the emulator's (its process tree); none without /proc. */
    const cpus: Record<keyof typeof best, Array<{ client: number; emulator: number }>> = { curl: [], upload: [], sync: [] };
    for (let round = 0; round < (engineOnly ? 0 : ROUNDS); round++) {
      // curl, upload, sync; then upload, sync, curl; then sync, curl, upload; …
      for (const side of [...sides.slice(round % sides.length), ...sides.slice(0, round % sides.length)]) {
        const from = timelineLog ? logLineCount(timelineLog) : 0;
        const startedAt = performance.timeOrigin + performance.now();
        const cpuBefore = { client: readProcessCpu(), emulator: readTreeCpuMs(emulator.pid) };
        const ms = await runs[side](round);
        const cpuAfter = { client: readProcessCpu(), emulator: readTreeCpuMs(emulator.pid) };
        if (cpuBefore.client && cpuAfter.client && cpuBefore.emulator !== undefined && cpuAfter.emulator !== undefined) {
          cpus[side].push({ client: cpuAfter.client.reapedChildrenMs - cpuBefore.client.reapedChildrenMs, emulator: cpuAfter.emulator - cpuBefore.emulator });
        }
        if (timelineLog) timelines[side].push(readRunTimeline(timelineLog, from, startedAt, startedAt + ms, PARALLEL));
        best[side] = Math.min(best[side], ms);
        if (process.env.BENCH_VERBOSE) console.log(`  round ${round} ${side}: ${ms.toFixed(0)} ms`);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(0);
    for (const side of sides) {
      // On 2 cores the two processes share the machine: a side's wall time follows both CPUs (docs/benchmarks.md).
      const c = cpus[side];
      if (c.length) console.log(`  cpu ${side} (medians of ${c.length}): client ${median(c.map((run) => run.client))} ms, emulator ${median(c.map((run) => run.emulator))} ms`);
    }
    if (timelineLog) {
      for (const side of sides) {
        const t = timelines[side];
        const of = (key: keyof RunTimeline) => median(t.map((run) => run[key]));
        console.log(
          `  timeline ${side} (medians of ${t.length}): first upload request ${of('firstUploadMs')} ms after the start; uploads over ${of('uploadSpanMs')} ms, of which fewer than ${PARALLEL} in flight ${of('belowParallelMs')} ms (none ${of('idleMs')} ms); exit ${of('tailMs')} ms after the last answer`,
        );
      }
    }
    const vsUpload = best.sync / best.upload;
    const vsCurl = best.sync / best.curl;
    if (!engineOnly) {
      console.log(
        `sync-small-first-vs-upload: ${best.sync.toFixed(0)} ms for ${FILES} files (ratio ${vsUpload.toFixed(2)} vs baseline ${best.upload.toFixed(0)} ms, ksm upload of the same folder) target ratio <= 1.05 ${vsUpload <= 1.05 ? 'PASS' : 'FAIL'}`,
      );
      console.log(
        `sync-small-first-vs-curl: ${best.sync.toFixed(0)} ms (ratio ${vsCurl.toFixed(2)} vs baseline ${best.curl.toFixed(0)} ms, curl --parallel --parallel-max ${PARALLEL}, ${Math.ceil(FILES / BATCH)} requests of ${BATCH} files) target ratio <= 1.25 ${vsCurl <= 1.25 ? 'PASS' : 'FAIL'}`,
      );
      console.log(
        `upload-small-vs-curl: ${best.upload.toFixed(0)} ms (ratio ${(best.upload / best.curl).toFixed(2)} vs baseline ${best.curl.toFixed(0)} ms curl) target ratio <= 1.25 ${best.upload / best.curl <= 1.25 ? 'PASS' : 'FAIL'}`,
      );
      // 1b: the bare Node client and curl in turn, each round to fresh volumes.
      const pathsFile = join(work, 'paths.json');
      writeFileSync(pathsFile, JSON.stringify(rels));
      const bare = { node: Infinity, curl: Infinity };
      for (let round = 0; round < ROUNDS; round++) {
        const uploader = join(__dirname, 'support', 'bareNodeUploader.mjs');
        bare.node = Math.min(bare.node, await timed(process.execPath, [uploader, emulator.url, DEFAULT_API_KEY, `bench-bare-${round}`, folder, pathsFile, String(BATCH), String(PARALLEL)], env));
        bare.curl = Math.min(bare.curl, await runs.curl(ROUNDS + round));
      }
      console.log(
        `node-bare-vs-curl: ${bare.node.toFixed(0)} ms (ratio ${(bare.node / bare.curl).toFixed(2)} vs baseline ${bare.curl.toFixed(0)} ms curl, the same ${Math.ceil(FILES / BATCH)} requests from a Node client doing nothing else, best of ${ROUNDS} each) no target: what any Node client here starts from`,
      );
      // 1c: what starting Node costs here before any of our code runs. Node 20 parses the whole
      // NODE_EXTRA_CA_CERTS file (and its own root certificates) at start, for any URL; curl reads
      // certificates only for https. The machine's environment is kept for every figure above.
      const start = { asIs: Infinity, noExtraCa: Infinity };
      const { NODE_EXTRA_CA_CERTS: extraCa, ...withoutExtraCa }: NodeJS.ProcessEnv = env;
      for (let round = 0; round < ROUNDS; round++) {
        start.asIs = Math.min(start.asIs, await timed(process.execPath, ['-e', '0'], env));
        if (extraCa) start.noExtraCa = Math.min(start.noExtraCa, await timed(process.execPath, ['-e', '0'], withoutExtraCa));
      }
      console.log(
        `node-start: ${start.asIs.toFixed(0)} ms for \`node -e 0\`, best of ${ROUNDS}${extraCa ? ` (${start.noExtraCa.toFixed(0)} ms with NODE_EXTRA_CA_CERTS=${extraCa} unset)` : ''} no target: paid by every ksm run and the bare client, not by curl`,
      );
    }

    // The engine in process: the manifest's cost, an incremental and a no-op re-sync.
    const client = new KsmClient({ baseUrl: emulator.url, apiKey: async () => DEFAULT_API_KEY, timeoutMs: 600_000 });
    // The editor's store (the journal folded in once it has grown); the CLI's folds it in after every run (printed last).
    const syncOnce = async (volume: string, using: FileManifestStore) => {
      const started = performance.now();
      const plan = await planSync({ folder, volume, service: client, store: using, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: true });
      const planned = performance.now();
      const summary = await applySync(plan, { service: client, store: using, embedding: 'emu-embed', doChunking: 0 });
      if (summary.failed) throw new Error(`${summary.failed} files failed`);
      const ms = performance.now() - started;
      if (process.env.BENCH_VERBOSE)
        console.log(
          `  ${volume}: plan ${(planned - started).toFixed(0)} ms (list ${plan.timings.listMs.toFixed(0)}, scan ${plan.timings.scanMs.toFixed(0)}, hash ${plan.timings.hashMs.toFixed(0)}), apply ${(ms - planned + started).toFixed(0)} ms`,
        );
      return ms;
    };
    const engine = { first: Infinity, edited: Infinity, noop: Infinity };
    let manifestFigures: { written: number; finalSize: number } | undefined;
    let manifestPath = '';
    let lastVolume = '';
    for (let round = 0; round < ENGINE_ROUNDS; round++) {
      lastVolume = `bench-engine-${round}`;
      manifestPath = join(work, `manifest-${round}.json`);
      const store = new FileManifestStore(manifestPath, emulator.url, { compactEveryRun: false });
      engine.first = Math.min(engine.first, await syncOnce(lastVolume, store));
      manifestFigures ??= { written: store.bytesWritten, finalSize: statSync(manifestPath).size };
      for (let i = 0; i < FILES; i += FILES / EDITED) writeFileSync(join(folder, rels[i]), `# Note ${i}, edited in round ${round}\n`);
      engine.edited = Math.min(engine.edited, await syncOnce(lastVolume, store));
      engine.noop = Math.min(engine.noop, await syncOnce(lastVolume, store));
    }
    const { first, edited, noop } = engine;
    const { written, finalSize } = manifestFigures!;
    console.log(
      `sync-manifest-bytes: ${(written / 1024).toFixed(0)} KiB written for a ${(finalSize / 1024).toFixed(0)} KiB manifest (ratio ${(written / finalSize).toFixed(2)} vs baseline its final size) target ratio <= 3 ${written <= 3 * finalSize ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `sync-small-edited: ${edited.toFixed(0)} ms for ${EDITED} edited of ${FILES}, best of ${ENGINE_ROUNDS} (ratio ${(edited / first).toFixed(3)} vs baseline ${first.toFixed(0)} ms first sync, best of ${ENGINE_ROUNDS}) target ratio <= 0.05 ${edited / first <= 0.05 ? 'PASS' : 'FAIL'}`,
    );
    console.log(
      `sync-small-noop: ${noop.toFixed(0)} ms, best of ${ENGINE_ROUNDS} (ratio ${(noop / first).toFixed(3)} vs baseline ${first.toFixed(0)} ms first sync) target ratio <= 0.05 ${noop / first <= 0.05 ? 'PASS' : 'FAIL'}`,
    );
    // The service's share of an edited re-sync, without the engine: the listing's pages (as
    // the plan asks for them: 1,000 a page, the rest four at once) and then the 50 files in the
    // same three requests, three in flight, with no scan, plan, manifest or deletion. The
    // emulator serves requests on one thread, so this is a floor the engine cannot go below
    // unless it asks for less; printed beside the edited figure so a FAIL says whose time it is.
    let floor = Infinity;
    for (let round = 0; round < ENGINE_ROUNDS; round++) {
      const started = performance.now();
      const first = await client.listFiles({ volume: lastVolume, offset: 0, limit: 1000 });
      const offsets: number[] = [];
      for (let offset = 1000; offset < first.total; offset += 1000) offsets.push(offset);
      await pMap(offsets, (offset) => client.listFiles({ volume: lastVolume, offset, limit: 1000 }), { concurrency: 4 });
      const edited = rels.filter((_, i) => i % (FILES / EDITED) === 2).map((rel) => ({ path: join(folder, rel), filename: `floor-${round}-${rel.split('/').join('__')}` }));
      const batches = [];
      for (let b = 0; b < edited.length; b += BATCH) batches.push(edited.slice(b, b + BATCH));
      const answers = await pMap(batches, (files) => client.uploadFiles({ volume: lastVolume, embedding: 'emu-embed', doChunking: 0, files }), { concurrency: PARALLEL });
      floor = Math.min(floor, performance.now() - started);
      // Not timed: the volume is left as the engine's runs made it (the CLI store's run below reads it).
      await client.deleteFiles({ volume: lastVolume, uuids: answers.flat().flatMap((answer) => (answer.ok ? [answer.info.uuid] : [])) });
    }
    console.log(
      `sync-small-edited-service-floor: ${floor.toFixed(0)} ms, best of ${ENGINE_ROUNDS}: the listing of ${FILES} and the upload of ${EDITED} files alone, no engine (ratio ${(floor / first).toFixed(3)} vs baseline ${first.toFixed(0)} ms first sync) no target`,
    );
    for (let i = 1; i < FILES; i += FILES / EDITED) writeFileSync(join(folder, rels[i]), `# Note ${i}, edited\n`);
    const editedCli = await syncOnce(lastVolume, new FileManifestStore(manifestPath, emulator.url));
    console.log(
      `sync-small-edited-cli: ${editedCli.toFixed(0)} ms for ${EDITED} edited of ${FILES} with the CLI's store (the journal folded into the manifest at the end of every run; ratio ${(editedCli / first).toFixed(3)} vs baseline ${first.toFixed(0)} ms first sync) no target`,
    );
  } finally {
    emulator.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
