// `ksm mcp`: what the MCP layer costs. (1) A `search` round trip over stdio with the SDK's
// Client minus the same search called directly on the retrieval engine in this process,
// both against one emulator (target: p50 < 5 ms). (2) `ksm mcp` from spawn to an answered
// `tools/list` vs `node -e 0` started in the same run (target: < 300 ms).
import './support/loadStamp';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startEmulator } from '../emulator/server';
import { KsmClient } from '../src/api/client';
import { Retrieval } from '../src/volumes/core/retrieval';

const ROOT = join(__dirname, '..');
const ROUNDS = 60;
const STARTS = 10;

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  execFileSync(process.execPath, [join(ROOT, 'esbuild.mjs'), '--cli-only', '--production'], { cwd: ROOT, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'ksm-bench-mcp-'));
  const emulator = await startEmulator({ port: 0, dataDir: join(dir, 'data'), stepMs: 1, tokenDelayMs: 0 });
  try {
    const service = new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey });
    const file = join(dir, 'guide.md');
    writeFileSync(file, '# Guide\n\nThe brass lens of the lighthouse is cleaned every Tuesday.\n');
    await service.uploadFiles({ volume: `{${emulator.userId}}`, embedding: 'emu-embed', doChunking: 1, files: [{ path: file, filename: 'guide.md' }] });
    await emulator.waitForIdle();
    const env = { PATH: process.env.PATH ?? '', KSM_BASE_URL: emulator.url, KSM_API_KEY: emulator.apiKey, KSM_USER_ID: emulator.userId, KSM_MODEL: 'emu-chat' };

    // (1) round trip: direct vs over stdio, interleaved so load affects both alike.
    const retrieval = new Retrieval();
    const scope = { service, userId: emulator.userId, volumes: [], agentId: 'rag-agent', agentModel: 'emu-chat' };
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist', 'cli.js'), 'mcp'], env, stderr: 'ignore' }));
    const direct: number[] = [];
    const viaMcp: number[] = [];
    for (let i = 0; i < ROUNDS + 5; i++) {
      const query = `brass lens ${i}`;
      let t = performance.now();
      const hits = await retrieval.search({ query, limit: 10 }, scope);
      const d = performance.now() - t;
      t = performance.now();
      const result = await client.callTool({ name: 'search', arguments: { query } });
      const m = performance.now() - t;
      if (result.isError || hits.length === 0) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
      if (i >= 5) {
        direct.push(d);
        viaMcp.push(m);
      }
    }
    await client.close();
    const overhead = viaMcp.map((m, i) => m - direct[i]!);
    console.log(`search direct p50 ${ms(p(direct, 0.5))}, over MCP stdio p50 ${ms(p(viaMcp, 0.5))}; MCP overhead p50 ${ms(p(overhead, 0.5))}, p90 ${ms(p(overhead, 0.9))} (target p50 < 5 ms)`);

    // (2) start to answered tools/list vs node -e 0.
    const nodeStart: number[] = [];
    const mcpStart: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      let t = performance.now();
      await new Promise<void>((resolve) => spawn(process.execPath, ['-e', '0']).once('exit', () => resolve()));
      nodeStart.push(performance.now() - t);
      t = performance.now();
      const c = new Client({ name: 'bench', version: '1' });
      await c.connect(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist', 'cli.js'), 'mcp'], env, stderr: 'ignore' }));
      await c.listTools();
      mcpStart.push(performance.now() - t);
      await c.close();
    }
    const a = p(mcpStart, 0.5);
    const b = p(nodeStart, 0.5);
    console.log(`ksm mcp start to answered tools/list p50 ${ms(a)} (target < 300 ms); node -e 0 p50 ${ms(b)}; ratio ${(a / b).toFixed(2)}×`);
  } finally {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
