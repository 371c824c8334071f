// SSE delivery rate of the emulator (issue 3): a long streamed completion with no token
// delay, read by a client over loopback, against a baseline of a raw TCP server writing the
// very same bytes to a socket in the same run. Prints both rates and their ratio.
import './support/loadStamp';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../emulator/server';

const WORDS = Number(process.env.BENCH_SSE_WORDS ?? 60_000);
const ROUNDS = 3;
const work = mkdtempSync(join(tmpdir(), 'ksm-bench-sse-'));

async function timeStream(url: string, key: string): Promise<{ seconds: number; body: Buffer }> {
  const started = process.hrtime.bigint();
  const answer = await fetch(`${url}/v3/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'emu-chat', stream: true, seed: 7, messages: [{ role: 'user', content: 'benchmark the stream please' }] }),
  });
  const body = Buffer.from(await answer.arrayBuffer());
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, body };
}

/** The same bytes written raw to a socket and read to the end by a client. */
async function timeRaw(body: Buffer): Promise<number> {
  const server = createServer((socket) => {
    // Same write granularity as the emulator: one write per SSE event.
    const events = body.toString('utf8').split('\n\n');
    let i = 0;
    const pump = () => {
      while (i < events.length) {
        const ok = socket.write(`${events[i++]}\n\n`);
        if (!ok) return void socket.once('drain', pump);
      }
      socket.end();
    };
    pump();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const started = process.hrtime.bigint();
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  client.resume();
  await once(client, 'end');
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  server.close();
  return seconds;
}

async function main(): Promise<void> {
  const emulator = await startEmulator({ port: 0, dataDir: join(work, 'data'), tokenDelayMs: 0, responseWords: WORDS });
  let best = Infinity;
  let body: Buffer = Buffer.alloc(0);
  for (let i = 0; i < ROUNDS; i++) {
    const run = await timeStream(emulator.url, emulator.apiKey);
    if (run.seconds < best) [best, body] = [run.seconds, run.body];
  }
  await emulator.close();
  let raw = Infinity;
  for (let i = 0; i < ROUNDS; i++) raw = Math.min(raw, await timeRaw(body));
  const events = body.toString('utf8').split('\n\n').length - 1;
  const mb = body.length / 1024 / 1024;
  console.log(`stream: ${mb.toFixed(1)} MB in ${events} events`);
  console.log(`raw socket baseline: ${(mb / raw).toFixed(1)} MB/s, ${(events / raw).toFixed(0)} events/s`);
  console.log(`emulator SSE:        ${(mb / best).toFixed(1)} MB/s, ${(events / best).toFixed(0)} events/s  ratio ${(raw / best).toFixed(3)} of raw`);
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => rmSync(work, { recursive: true, force: true }));
