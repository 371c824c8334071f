// Client stream latency (issue 4): the client's time to its first parsed chat chunk minus a
// bare undici request's time to first byte, against the same minimal raw SSE server on
// loopback (it answers the first event at once). Paired runs alternate the two on one
// keep-alive connection pool; the figure is the median of the per-pair differences.
// Target: < 2 ms. Run: npx tsx bench/client-stream-latency.ts
import './support/loadStamp';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { KsmClient } from '../src/api/client';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const FIRST = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'emu-chat', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }], usage: null })}\n\n`;

async function main(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(FIRST);
      setImmediate(() => res.end('data: [DONE]\n\n'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent();
  const client = new KsmClient({ baseUrl: url, apiKey: async () => 'bench-key', dispatcher });
  const ask = { model: 'emu-chat', messages: [{ role: 'user' as const, content: 'hello' }] };

  async function bareFirstByte(): Promise<number> {
    const started = performance.now();
    const response = await request(`${url}/v3/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...ask, stream: true }),
      dispatcher,
    });
    let elapsed = -1;
    for await (const piece of response.body) if (elapsed < 0 && piece.length > 0) elapsed = performance.now() - started;
    return elapsed;
  }

  async function clientFirstChunk(): Promise<number> {
    const started = performance.now();
    let elapsed = -1;
    for await (const chunk of client.streamChatCompletion(ask)) if (elapsed < 0 && chunk) elapsed = performance.now() - started;
    return elapsed;
  }

  for (let i = 0; i < 30; i++) {
    await bareFirstByte();
    await clientFirstChunk();
  }
  const differences: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // Alternate which goes first, so neither always gets the warmer connection.
    let ours: number;
    let base: number;
    if (i % 2 === 0) {
      base = await bareFirstByte();
      ours = await clientFirstChunk();
    } else {
      ours = await clientFirstChunk();
      base = await bareFirstByte();
    }
    differences.push(ours - base);
    bare.push(base);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const added = median(differences);
  const baseline = median(bare);
  const pass = added < 2;
  console.log(
    `client-stream-latency: +${added.toFixed(3)} ms to first parsed chunk (ratio ${((baseline + added) / baseline).toFixed(2)} vs baseline ${baseline.toFixed(3)} ms, bare undici time to first byte; median of ${PAIRS} pairs) target < 2 ms added ${pass ? 'PASS' : 'FAIL'}`,
  );
  await dispatcher.close();
  server.close();
  process.exitCode = pass ? 0 : 1;
}

void main();
