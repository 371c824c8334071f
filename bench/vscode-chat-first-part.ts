// VS Code Chat latency (issue 15): time from provideLanguageModelChatResponse's core
// (provideModelResponse: message mapping, request, stream) to the first text part it
// reports, minus the client's own time to its first chunk, against the same minimal raw
// SSE server on loopback (it answers the first content chunk at once). Paired runs
// alternate the two on one keep-alive connection pool; the figure is the median of the
// per-pair differences. Target: < 2 ms. Run: npx tsx bench/vscode-chat-first-part.ts
import './support/loadStamp';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { KsmClient } from '../src/api/client';
import type { NeutralMessage } from '../src/nativeChat/core/messageMapping';
import { findModel } from '../src/nativeChat/core/modelCatalog';
import { provideModelResponse } from '../src/nativeChat/core/modelResponse';
import { ThreadBook } from '../src/nativeChat/core/threadBook';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'emu-chat', choices: [{ index: 0, delta, finish_reason: finish }], usage: null })}\n\n`;
const FIRST = chunk({ role: 'assistant', content: 'Hi' });
const REST = `${chunk({ content: ' there' })}${chunk({}, 'stop')}data: [DONE]\n\n`;

// A realistic VS Code conversation: a system prompt, two earlier turns, a tool round trip.
const MESSAGES: NeutralMessage[] = [
  { role: 'system', parts: [{ kind: 'text', text: 'You are a helpful assistant. '.repeat(40) }] },
  { role: 'user', parts: [{ kind: 'text', text: 'Find the release checklist.' }] },
  { role: 'assistant', parts: [{ kind: 'toolCall', callId: 'call_1', name: 'ksm_search_volumes', input: { query: 'release checklist' } }] },
  { role: 'user', parts: [{ kind: 'toolResult', callId: 'call_1', text: 'Found 1 passage(s): [1] release-process.md …'.repeat(10) }] },
  { role: 'assistant', parts: [{ kind: 'text', text: 'The checklist says: tag, build, publish.' }] },
  { role: 'user', parts: [{ kind: 'text', text: 'And who publishes the notes?' }] },
];
const TOOLS = [{ name: 'ksm_search_volumes', description: 'search', inputSchema: { type: 'object', properties: { query: { type: 'string' } } } }];

async function main(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(FIRST);
      setImmediate(() => res.end(REST));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dispatcher = new Agent();
  const client = new KsmClient({ baseUrl: url, apiKey: async () => 'bench-key', dispatcher });
  const model = findModel({ show: true, models: ['emu-chat'], agentId: 'rag-agent', agentModel: 'emu-chat' }, 'emu-chat')!;
  // The client alone gets the request the core would build (same size on the wire).
  const { toServiceMessages, toServiceTools } = await import('../src/nativeChat/core/messageMapping');
  const wire = { model: 'emu-chat', messages: toServiceMessages(MESSAGES), tools: toServiceTools(TOOLS) };

  async function clientFirstChunk(): Promise<number> {
    const started = performance.now();
    let elapsed = -1;
    for await (const c of client.streamChatCompletion(wire)) if (elapsed < 0 && c.choices[0]?.delta.content) elapsed = performance.now() - started;
    return elapsed;
  }

  async function providerFirstPart(): Promise<number> {
    const started = performance.now();
    let elapsed = -1;
    await provideModelResponse({
      service: client,
      model,
      messages: MESSAGES,
      tools: TOOLS,
      language: 'en',
      volumes: [],
      threads: new ThreadBook(),
      signal: new AbortController().signal,
      report: (part) => {
        if (elapsed < 0 && part.kind === 'text') elapsed = performance.now() - started;
      },
    });
    return elapsed;
  }

  for (let i = 0; i < 30; i++) {
    await clientFirstChunk();
    await providerFirstPart();
  }
  const differences: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // Alternate which goes first, so neither always gets the warmer connection.
    let ours: number;
    let client_: number;
    if (i % 2 === 0) {
      client_ = await clientFirstChunk();
      ours = await providerFirstPart();
    } else {
      ours = await providerFirstPart();
      client_ = await clientFirstChunk();
    }
    differences.push(ours - client_);
    base.push(client_);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const added = median(differences);
  const baseline = median(base);
  const pass = added < 2;
  console.log(
    `vscode-chat-first-part: +${added.toFixed(3)} ms from provideLanguageModelChatResponse to the first text part (ratio ${((baseline + added) / baseline).toFixed(2)} vs baseline ${baseline.toFixed(3)} ms, the client's own time to first chunk; median of ${PAIRS} pairs) target < 2 ms added ${pass ? 'PASS' : 'FAIL'}`,
  );
  await dispatcher.close();
  server.close();
  process.exitCode = pass ? 0 : 1;
}

void main();
