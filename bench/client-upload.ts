// Client upload (issue 4): a 1 GiB file uploaded by the client to the emulator (its own
// process, so only the client's memory is measured here), against `curl -F` sending the
// same file to the same server in the same run. Targets: peak RSS growth of this process
// < 64 MiB (the body is streamed from disk, never held whole), and client throughput
// ≥ 0.8× curl's. do_chunking=0 and a long step keep the server's processing out of the way.
// Run: npx tsx bench/client-upload.ts   (needs about 5 GiB of free space in the temp folder)
import './support/loadStamp';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KsmClient } from '../src/api/client';
import { DEFAULT_API_KEY } from '../emulator/server';
import { startEmulatorProcess } from './support/emulatorProcess';

const SIZE = Number(process.env.BENCH_UPLOAD_BYTES ?? 1024 ** 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const MiB = 1024 * 1024;

function writeTestFile(path: string): void {
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + (i >> 8)) & 0xff;
  const fd = openSync(path, 'w');
  for (let written = 0; written < SIZE; written += block.length) writeSync(fd, block, 0, Math.min(block.length, SIZE - written));
  closeSync(fd);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ksm-bench-upload-'));
  const file = join(work, 'one-gib.bin');
  const emulator = await startEmulatorProcess(join(work, 'data'), ['--max-upload-mb', String(Math.ceil((SIZE * 2) / MiB))]);
  try {
    writeTestFile(file);
    const client = new KsmClient({ baseUrl: emulator.url, apiKey: async () => DEFAULT_API_KEY, timeoutMs: 600_000 });

    const viaCurl = (): number => {
      const started = performance.now();
      const status = execFileSync('curl', [
        '-sS',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code}',
        '-H',
        `Authorization: Bearer ${DEFAULT_API_KEY}`,
        '-F',
        'volume=bench',
        '-F',
        'embedding=emu-embed',
        '-F',
        'do_chunking=0',
        '-F',
        `file=@${file}`,
        `${emulator.url}/ksm/rag/v5/files`,
      ]).toString();
      if (status !== '200') throw new Error(`curl upload answered HTTP ${status}`);
      return SIZE / ((performance.now() - started) / 1000);
    };

    const viaClient = async (): Promise<{ rate: number; peakGrowth: number }> => {
      globalThis.gc?.();
      const startRss = process.memoryUsage.rss();
      let peak = startRss;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 10);
      const started = performance.now();
      const [result] = await client.uploadFiles(
        { volume: 'bench', embedding: 'emu-embed', doChunking: 0, files: [{ path: file }] },
        { onProgress: () => (peak = Math.max(peak, process.memoryUsage.rss())) },
      );
      const elapsed = performance.now() - started;
      clearInterval(sampler);
      if (!result.ok) throw result.error;
      return { rate: SIZE / (elapsed / 1000), peakGrowth: peak - startRss };
    };

    const curlRates: number[] = [];
    const clientRates: number[] = [];
    let peakGrowth = 0;
    for (let round = 0; round < ROUNDS; round++) {
      curlRates.push(viaCurl());
      const measured = await viaClient();
      clientRates.push(measured.rate);
      peakGrowth = Math.max(peakGrowth, measured.peakGrowth);
    }
    // Best of each: on a shared machine the slower runs measure the neighbours, not us.
    const curlRate = Math.max(...curlRates);
    const clientRate = Math.max(...clientRates);
    const ratio = clientRate / curlRate;
    const fmt = (bytesPerSecond: number) => `${(bytesPerSecond / MiB).toFixed(0)} MiB/s`;
    const memoryPass = peakGrowth < 64 * MiB;
    const speedPass = ratio >= 0.8;
    console.log(`client-upload-memory: peak RSS growth ${(peakGrowth / MiB).toFixed(1)} MiB for a ${(SIZE / MiB).toFixed(0)} MiB file target < 64 MiB ${memoryPass ? 'PASS' : 'FAIL'}`);
    console.log(
      `client-upload-throughput: ${fmt(clientRate)} (ratio ${ratio.toFixed(2)} vs baseline ${fmt(curlRate)}, curl -F to the same emulator) target ratio >= 0.80 ${speedPass ? 'PASS' : 'FAIL'}`,
    );
    process.exitCode = memoryPass && speedPass ? 0 : 1;
  } finally {
    emulator.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
