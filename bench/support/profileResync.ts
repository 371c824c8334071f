// Profiles no-op and 50-edited re-syncs in process (issue 21 tuning aid, not a bench):
// writes .cpuprofile files to PROFILE_DIR and prints per-run timings, the client's CPU, the
// emulator's CPU (from /proc, Linux; the emulator and its process worker) and the
// requests made, then the medians. RUNS=n (default 6) runs of each kind.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_API_KEY } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { applySync } from '../../src/sync/core/apply';
import { FileManifestStore } from '../../src/sync/core/manifest';
import { planSync } from '../../src/sync/core/plan';
import { startEmulatorProcess } from './emulatorProcess';
import { readTreeCpuMs } from './processCpu';

async function main(): Promise<void> {
  const out = process.env.PROFILE_DIR ?? tmpdir();
  const work = mkdtempSync(join(tmpdir(), 'ksm-prof-'));
  const emulator = await startEmulatorProcess(join(work, 'data'));
  try {
    const folder = join(work, 'docs');
    const rels: string[] = [];
    for (let i = 0; i < 5000; i++) {
      const dir = `part-${Math.floor(i / 250)}`;
      if (i % 250 === 0) mkdirSync(join(folder, dir), { recursive: true });
      writeFileSync(join(folder, dir, `note-${i}.md`), `# Note ${i}\n`.padEnd(1024 + ((i * 613) % 3072), 'lorem ipsum dolor sit amet '));
      rels.push(`${dir}/note-${i}.md`);
    }
    const plain = new KsmClient({ baseUrl: emulator.url, apiKey: async () => DEFAULT_API_KEY, timeoutMs: 600_000 });
    let requests = 0;
    const counted = new Set(['listFiles', 'uploadFiles', 'deleteFiles']);
    const client = new Proxy(plain, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (counted.has(String(key))) requests++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const figures: Record<string, Array<Record<string, number>>> = { noop: [], edited: [] };
    const store = new FileManifestStore(join(work, 'manifest.json'), emulator.url, { compactEveryRun: false });
    const once = async (kind?: string) => {
      requests = 0;
      const cpu0 = process.cpuUsage();
      const emu0 = readTreeCpuMs(emulator.pid) ?? 0;
      const t0 = performance.now();
      const plan = await planSync({ folder, volume: 'prof', service: client, store, rules: { excludeGlobs: [], maxFileSizeBytes: 0 }, deleteRemoved: true });
      const t1 = performance.now();
      const summary = await applySync(plan, { service: client, store, embedding: 'emu-embed', doChunking: 0 });
      if (summary.failed) throw new Error('failed');
      const t2 = performance.now();
      const cpu = process.cpuUsage(cpu0);
      const run = { total: t2 - t0, plan: t1 - t0, apply: t2 - t1, clientCpu: (cpu.user + cpu.system) / 1000, emulatorCpu: (readTreeCpuMs(emulator.pid) ?? 0) - emu0, requests };
      if (kind) figures[kind].push(run);
      return `requests ${requests} client CPU ${run.clientCpu.toFixed(0)} emulator CPU ${run.emulatorCpu.toFixed(0)} total ${(t2 - t0).toFixed(0)} plan ${(t1 - t0).toFixed(0)} (list ${plan.timings.listMs.toFixed(0)} scan ${plan.timings.scanMs.toFixed(0)} hash ${plan.timings.hashMs.toFixed(0)}) apply ${(t2 - t1).toFixed(0)}`;
    };
    console.log('first', await once());
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    for (const kind of ['noop', 'edited']) {
      await session.post('Profiler.start');
      const lines: string[] = [];
      for (let r = 0; r < Number(process.env.RUNS ?? 6); r++) {
        if (kind === 'edited') for (let i = r; i < 5000; i += 100) writeFileSync(join(folder, rels[i]), `# Note ${i}, edited ${r}\n`);
        lines.push(await once(kind));
      }
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(join(out, `${kind}.cpuprofile`), JSON.stringify(profile));
      for (const l of lines) console.log(kind, l);
      const median = (key: string) => {
        const values = figures[kind].map((f) => f[key]).sort((a, b) => a - b);
        return values[Math.floor(values.length / 2)].toFixed(0);
      };
      console.log(`${kind} medians: ${['total', 'plan', 'apply', 'clientCpu', 'emulatorCpu', 'requests'].map((k) => `${k} ${median(k)}`).join(', ')} (the profiler on)`);
    }
  } finally {
    emulator.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
void main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
