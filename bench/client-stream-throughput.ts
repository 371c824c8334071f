// Client stream throughput (issue 4): a 100,000-chunk chat stream served as fast as the
// socket allows by a minimal raw SSE server on loopback. Baseline, measured in the same
// run over the same bytes: a bare undici request whose body is fed to eventsource-parser,
// JSON.parse-ing each event. Targets: client ≥ 0.7× baseline, and > 100,000 chunks/s.
// Run: npx tsx bench/client-stream-throughput.ts
import './support/loadStamp';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { Agent, request } from 'undici';
import { KsmClient } from '../src/api/client';

const CHUNKS = 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function buildStream(): Buffer {
  const parts: string[] = [];
  for (let i = 0; i < CHUNKS; i++) {
    const chunk = {
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: 1795300000,
      model: 'emu-chat',
      choices: [{ index: 0, delta: { content: `word${i} ` }, logprobs: null, finish_reason: null }],
      usage: null,
    };
    parts.push(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  parts.push('data: [DONE]\n\n');
  return Buffer.from(parts.join(''));
}

async function main(): Promise<void> {
  const body = buildStream();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent();
  const client = new KsmClient({ baseUrl: url, apiKey: async () => 'bench-key', dispatcher });
  const ask = { model: 'emu-chat', messages: [{ role: 'user' as const, content: 'go' }] };

  async function baseline(): Promise<number> {
    const started = performance.now();
    const response = await request(`${url}/v3/chat/completions`, { method: 'POST', body: JSON.stringify({ ...ask, stream: true }), dispatcher });
    let count = 0;
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: (event) => {
        if (event.data !== '[DONE]' && JSON.parse(event.data)) count++;
      },
    });
    for await (const piece of response.body) parser.feed(decoder.decode(piece, { stream: true }));
    if (count !== CHUNKS) throw new Error(`baseline saw ${count} chunks`);
    return CHUNKS / ((performance.now() - started) / 1000);
  }

  async function viaClient(): Promise<number> {
    const started = performance.now();
    let count = 0;
    for await (const chunk of client.streamChatCompletion(ask)) if (chunk.choices) count++;
    if (count !== CHUNKS) throw new Error(`client saw ${count} chunks`);
    return CHUNKS / ((performance.now() - started) / 1000);
  }

  await baseline();
  await viaClient(); // warm-up
  const base: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    base.push(await baseline());
    ours.push(await viaClient());
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rate = median(ours);
  const baseRate = median(base);
  const ratio = rate / baseRate;
  const pass = ratio >= 0.7 && rate > 100_000;
  console.log(
    `client-stream-throughput: ${Math.round(rate).toLocaleString('en')} chunks/s (ratio ${ratio.toFixed(2)} vs baseline ${Math.round(baseRate).toLocaleString('en')} chunks/s, eventsource-parser + JSON.parse) target ratio >= 0.70 and > 100,000 chunks/s ${pass ? 'PASS' : 'FAIL'}`,
  );
  await dispatcher.close();
  server.close();
  process.exitCode = pass ? 0 : 1;
}

void main();
