// The Responses output format (issue 24, D16), measured as the chat format is
// (client-stream-throughput.ts, client-stream-latency.ts), against a minimal raw SSE server
// on loopback:
// - throughput: a 100,000-delta Responses stream (`event:` + `data:` lines, a
//   sequence_number on each) read by the client (into chat chunks), vs a bare undici request
//   whose body is fed to eventsource-parser, JSON.parse-ing each event, over the same bytes
//   in the same run. Target: ≥ 0.7× the baseline.
// - latency: the client's time to its first parsed text minus a bare undici request's time to
//   first byte (the server writes response.created and the first delta at once); median of
//   paired runs. Target: < 2 ms.
// Run: npx tsx bench/client-responses-stream.ts
import './support/loadStamp';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { Agent, request } from 'undici';
import { KsmClient } from '../src/api/client';

const DELTAS = 100_000;
const TEXT_CHARS = Array.from({ length: DELTAS }, (_, i) => `word${i} `.length).reduce((a, b) => a + b, 0);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const RESPONSE = { id: 'resp_bench', object: 'response', created_at: 1795300000, model: 'emu-chat', status: 'in_progress', output: [] };

const event = (type: string, sequence: number, fields: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...fields })}\n\n`;

function buildStream(): Buffer {
  const parts: string[] = [event('response.created', 0, { response: RESPONSE })];
  for (let i = 0; i < DELTAS; i++) parts.push(event('response.output_text.delta', i + 1, { item_id: 'msg_1', output_index: 0, content_index: 0, delta: `word${i} ` }));
  parts.push(event('response.completed', DELTAS + 1, { response: { ...RESPONSE, status: 'completed', usage: { input_tokens: 1, output_tokens: DELTAS, total_tokens: DELTAS + 1 } } }));
  return Buffer.from(parts.join(''));
}

const FIRST = event('response.created', 0, { response: RESPONSE }) + event('response.output_text.delta', 1, { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' });
const LAST = event('response.completed', 2, { response: { ...RESPONSE, status: 'completed' } });

async function main(): Promise<void> {
  const body = buildStream();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/latency')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(FIRST);
        setImmediate(() => res.end(LAST));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-length': body.length });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent();
  const client = new KsmClient({ baseUrl: url, apiKey: async () => 'bench-key', dispatcher });
  // The latency server answers on its own path: a client whose base URL ends in /latency.
  const latencyClient = new KsmClient({ baseUrl: `${url}/latency`, apiKey: async () => 'bench-key', dispatcher });
  const ask = { model: 'emu-chat', messages: [{ role: 'user' as const, content: 'go' }], output_parser: 'responses' as const };

  async function baseline(): Promise<number> {
    const started = performance.now();
    const response = await request(`${url}/v3/chat/completions`, { method: 'POST', body: JSON.stringify({ ...ask, stream: true }), dispatcher });
    let count = 0;
    const decoder = new TextDecoder();
    const parser = createParser({
      onEvent: (e) => {
        if (JSON.parse(e.data).type === 'response.output_text.delta') count++;
      },
    });
    for await (const piece of response.body) parser.feed(decoder.decode(piece, { stream: true }));
    if (count !== DELTAS) throw new Error(`baseline saw ${count} deltas`);
    return DELTAS / ((performance.now() - started) / 1000);
  }

  async function viaClient(): Promise<number> {
    const started = performance.now();
    // Consecutive deltas of one network read arrive merged (one item, the same text): the check is the text.
    let chars = 0;
    for await (const chunk of client.streamChatCompletion(ask)) chars += chunk.choices[0]?.delta.content?.length ?? 0;
    if (chars !== TEXT_CHARS) throw new Error(`client saw ${chars} characters of ${TEXT_CHARS}`);
    return DELTAS / ((performance.now() - started) / 1000);
  }

  async function bareFirstByte(): Promise<number> {
    const started = performance.now();
    const response = await request(`${url}/latency/v3/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...ask, stream: true }),
      dispatcher,
    });
    let elapsed = -1;
    for await (const piece of response.body) if (elapsed < 0 && piece.length > 0) elapsed = performance.now() - started;
    return elapsed;
  }

  async function clientFirstText(): Promise<number> {
    const started = performance.now();
    let elapsed = -1;
    for await (const chunk of latencyClient.streamChatCompletion(ask)) if (elapsed < 0 && chunk.choices[0]?.delta.content) elapsed = performance.now() - started;
    return elapsed;
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  await baseline();
  await viaClient(); // warm-up
  const base: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    base.push(await baseline());
    ours.push(await viaClient());
  }
  const rate = median(ours);
  const baseRate = median(base);
  const ratio = rate / baseRate;
  const throughputPass = ratio >= 0.7;
  console.log(
    `client-responses-stream throughput: ${Math.round(rate).toLocaleString('en')} deltas/s (ratio ${ratio.toFixed(2)} vs baseline ${Math.round(baseRate).toLocaleString('en')} deltas/s, eventsource-parser + JSON.parse) target ratio >= 0.70 ${throughputPass ? 'PASS' : 'FAIL'}`,
  );

  for (let i = 0; i < 30; i++) {
    await bareFirstByte();
    await clientFirstText();
  }
  const differences: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    let mine: number;
    let theirs: number;
    if (i % 2 === 0) {
      theirs = await bareFirstByte();
      mine = await clientFirstText();
    } else {
      mine = await clientFirstText();
      theirs = await bareFirstByte();
    }
    differences.push(mine - theirs);
    bare.push(theirs);
  }
  const added = median(differences);
  const bareMedian = median(bare);
  const latencyPass = added < 2;
  console.log(
    `client-responses-stream latency: +${added.toFixed(3)} ms to first parsed text (ratio ${((bareMedian + added) / bareMedian).toFixed(2)} vs baseline ${bareMedian.toFixed(3)} ms, bare undici time to first byte; median of ${PAIRS} pairs) target < 2 ms added ${latencyPass ? 'PASS' : 'FAIL'}`,
  );
  await dispatcher.close();
  server.close();
  process.exitCode = throughputPass && latencyPass ? 0 : 1;
}

void main();
