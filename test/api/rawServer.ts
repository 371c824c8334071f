// A tiny loopback HTTP server whose answers a test writes byte by byte: for shapes and
// faults the emulator does not produce (odd framing, tolerant decoding, hang-ups).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RawServer {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Requests seen so far, with their bodies. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close(): Promise<void>;
}

export async function startRawServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>): Promise<RawServer> {
  const sockets = new Set<Socket>();
  const raw: RawServer = { url: '', connections: 0, requests: [], close: async () => undefined };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    raw.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    await handler(req, res, body);
  });
  server.on('connection', (socket) => {
    raw.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  raw.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  raw.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return raw;
}

/** Writes an SSE answer's head; the test then writes the raw pieces it wants. */
export function sseHead(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
}

/**
 * A pass-through in front of `target` (the emulator) that records every request: for tests
 * that must see what went on the wire while the real service answers.
 */
export function startRecordingProxy(target: () => string): Promise<RawServer> {
  return startRawServer(async (req, res, body) => {
    const headers: Record<string, string> = { 'content-type': String(req.headers['content-type'] ?? 'application/json') };
    if (req.headers.authorization) headers.authorization = String(req.headers.authorization);
    const answer = await fetch(`${target()}${req.url}`, { method: req.method, headers, ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }) });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.on('close', () => void answer.body?.cancel().catch(() => undefined));
    try {
      for await (const piece of answer.body ?? []) if (!res.destroyed) res.write(piece);
    } catch {
      // The client went away (Stop): nothing more to pass on.
    }
    res.end();
  });
}
