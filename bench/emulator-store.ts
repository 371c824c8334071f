// The emulator as a service under load (issue 12), on its real CLI in a child process:
//  1. ingest BENCH_STORE_FILES (40,000) small files (do_chunking=1: chunks and vectors are
//     stored), then restart: peak RSS of the emulator (and of its processing workers) and the
//     restart time (spawn → listening → first listing), as ratios against an emulator with an
//     empty store started in the same run. Goals: peak RSS < 500 MB, restart < 2 s.
//  2. listing latency while a BENCH_STORE_BIG_MB (60) MB file is processed, against idle
//     listing in the same run. Goal: p99 < 50 ms.
import './support/loadStamp';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const FILES = Number(process.env.BENCH_STORE_FILES ?? 40_000);
const BIG_MB = Number(process.env.BENCH_STORE_BIG_MB ?? 60);
const PER_UPLOAD = 500;
const KEY = 'ksm-emulator-key';
const root = resolve(__dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'ksm-bench-store-'));

interface Emulator {
  child: ChildProcess;
  url: string;
  /** spawn → "listening" printed, in ms. */
  startMs: number;
}

async function startEmulator(dataDir: string): Promise<Emulator> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'emulator/cli.ts', '--port', '0', '--data-dir', dataDir, '--step-ms', '0', '--test-controls', '--quiet'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolveUrl, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return { child, url, startMs: performance.now() - started };
}

async function stop(emulator: Emulator): Promise<void> {
  const exited = new Promise((resolveExit) => emulator.child.once('exit', resolveExit));
  emulator.child.kill('SIGTERM');
  await exited;
}

/** kB figures from /proc/<pid>/status (Linux). */
function procStatus(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function childPids(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  return existsSync(path) ? readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
}

/** Samples the emulator's workers' RSS (their peak is gone once they exit) until stopped. */
function sampleWorkers(pid: number): { stop: () => number } {
  let peak = 0;
  const timer = setInterval(() => {
    const total = childPids(pid).reduce((sum, child) => sum + procStatus(child, 'VmRSS'), 0);
    peak = Math.max(peak, total);
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEY}`, ...(body instanceof FormData || body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json).slice(0, 200)}`);
  return json;
}

/** GET with a JSON body (the D6 listing): undici's fetch will not send one, so a raw request. */
async function listing(url: string, volume: string, limit = 20): Promise<number> {
  const { request } = await import('undici');
  const started = performance.now();
  const response = await request(`${url}/ksm/rag/v5/files`, {
    method: 'GET',
    headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ volume, limit }),
  });
  await response.body.json();
  if (response.statusCode !== 200) throw new Error(`listing answered ${response.statusCode}`);
  return performance.now() - started;
}

async function waitIdle(url: string): Promise<void> {
  for (;;) {
    const stats = await api(url, 'GET', '/_emulator/stats');
    if (stats.processing === 0) return;
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function ingestAndRestart(): Promise<void> {
  // Baseline: an emulator on an empty store, same machine, same run.
  const emptyDir = join(work, 'empty');
  const empty = await startEmulator(emptyDir);
  await listing(empty.url, '{dev}');
  const emptyRestartMs = empty.startMs;
  const emptyRss = procStatus(empty.child.pid!, 'VmHWM');
  await stop(empty);

  const dataDir = join(work, 'many');
  const loaded = await startEmulator(dataDir);
  const workers = sampleWorkers(loaded.child.pid!);
  const ingestStarted = performance.now();
  for (let first = 0; first < FILES; first += PER_UPLOAD) {
    const form = new FormData();
    form.append('volume', 'many');
    form.append('embedding', 'emu-embed');
    form.append('do_chunking', '1');
    for (let i = first; i < Math.min(FILES, first + PER_UPLOAD); i++) form.append('file', new Blob([`note ${i}: the tide table for harbour ${i % 97} and moon phase ${i % 29}`]), `note-${i}.txt`);
    await api(loaded.url, 'POST', '/ksm/rag/v5/files', form);
  }
  const uploadedMs = performance.now() - ingestStarted;
  await waitIdle(loaded.url);
  const processedMs = performance.now() - ingestStarted;
  const ingestPeak = procStatus(loaded.child.pid!, 'VmHWM');
  const workerPeak = workers.stop();
  await stop(loaded);

  const restarted = await startEmulator(dataDir);
  const firstListingMs = await listing(restarted.url, 'many', 1000);
  const restartRss = procStatus(restarted.child.pid!, 'VmHWM');
  await stop(restarted);

  console.log(`${FILES} small files (do_chunking=1): uploaded in ${(uploadedMs / 1000).toFixed(1)} s, processed to done in ${(processedMs / 1000).toFixed(1)} s`);
  console.log(`peak RSS during ingest:  emulator ${mb(ingestPeak)} (${(ingestPeak / emptyRss).toFixed(2)}x an empty emulator's ${mb(emptyRss)}), workers ${mb(workerPeak)}; goal < 500 MB`);
  console.log(
    `restart on ${FILES} files: ${restarted.startMs.toFixed(0)} ms to listening + ${firstListingMs.toFixed(0)} ms first 1000-file listing (${(restarted.startMs / emptyRestartMs).toFixed(2)}x an empty store's ${emptyRestartMs.toFixed(0)} ms); goal < 2000 ms`,
  );
  console.log(`peak RSS after restart:  ${mb(restartRss)} (${(restartRss / emptyRss).toFixed(2)}x empty)`);
}

async function listingWhileProcessing(): Promise<void> {
  const emulator = await startEmulator(join(work, 'latency'));
  const form = new FormData();
  form.append('volume', 'small');
  form.append('embedding', 'emu-embed');
  for (let i = 0; i < 200; i++) form.append('file', new Blob([`file ${i}`]), `f${i}.txt`);
  await api(emulator.url, 'POST', '/ksm/rag/v5/files', form);
  await waitIdle(emulator.url);

  const idle: number[] = [];
  for (let i = 0; i < 400; i++) idle.push(await listing(emulator.url, 'small'));

  const big = new FormData();
  big.append('volume', 'big');
  big.append('embedding', 'emu-embed');
  big.append('do_chunking', '1');
  big.append('file', new Blob([Buffer.from('lanterns guide ships past the reef at night '.repeat(Math.ceil((BIG_MB * 1024 * 1024) / 44)))]), 'big.txt');
  const processingStarted = performance.now();
  await api(emulator.url, 'POST', '/ksm/rag/v5/files', big);
  const busy: number[] = [];
  for (;;) {
    busy.push(await listing(emulator.url, 'small'));
    if (busy.length % 50 === 0 && (await api(emulator.url, 'GET', '/_emulator/stats')).processing === 0) break;
  }
  const processingMs = performance.now() - processingStarted;
  await stop(emulator);

  const p = (values: number[], q: number) => percentile(values, q).toFixed(1);
  console.log(`listing (20 of 200 files), idle:                 p50 ${p(idle, 50)} ms, p99 ${p(idle, 99)} ms (${idle.length} requests)`);
  console.log(`listing while a ${BIG_MB} MB file is processed:     p50 ${p(busy, 50)} ms, p99 ${p(busy, 99)} ms (${busy.length} requests over ${(processingMs / 1000).toFixed(1)} s)`);
  console.log(`p99 busy / idle: ${(percentile(busy, 99) / percentile(idle, 99)).toFixed(2)}x; goal p99 < 50 ms`);
}

async function main(): Promise<void> {
  await listingWhileProcessing();
  await ingestAndRestart();
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
