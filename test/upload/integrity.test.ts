// The bytes an upload puts on the wire are exactly the files' bytes, in order, with the
// multipart framing a standard parser (busboy) reads back, including when the server reads
// slowly (so the client's writes wait for 'drain'). Guards the buffer reuse in multipart.ts.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import busboy from 'busboy';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KsmClient } from '../../src/api/client';

interface ReceivedPart {
  field: string;
  filename?: string;
  sha256?: string;
  value?: string;
}

/** Parses each upload with busboy, hashing file parts; `slow` makes it read in small sips. */
async function startParsingServer(slow: boolean): Promise<{ url: string; uploads: ReceivedPart[][]; server: Server }> {
  const uploads: ReceivedPart[][] = [];
  const server = createServer((req, res) => {
    const parts: ReceivedPart[] = [];
    const pending: Array<Promise<void>> = [];
    const parser = busboy({ headers: req.headers, defParamCharset: 'utf8' });
    parser.on('field', (field, value) => parts.push({ field, value }));
    parser.on('file', (field, stream, info) => {
      const part: ReceivedPart = { field, filename: info.filename };
      parts.push(part);
      const hash = createHash('sha256');
      pending.push(
        (async () => {
          for await (const piece of stream) {
            hash.update(piece as Buffer);
            if (slow) await wait(1);
          }
          part.sha256 = hash.digest('hex');
        })(),
      );
    });
    parser.on('close', async () => {
      await Promise.all(pending);
      uploads.push(parts);
      const infoz = parts.filter((p) => p.filename !== undefined).map((p, i) => ({ uuid: `u${i}`, filename: p.filename, status: 'uploaded', filesize: 0, date: '', isdir: 0 }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 200, message: 'OK', infoz }));
    });
    req.pipe(parser);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, uploads, server };
}

describe('api: upload integrity on the wire', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-integrity-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const slow of [false, true]) {
    it(`sends every byte of large and small files in order${slow ? ' to a server that reads slowly' : ''}`, async () => {
      const files = [
        { name: 'big.bin', content: randomBytes(5 * 1024 * 1024 + 12345) },
        { name: 'empty.txt', content: Buffer.alloc(0) },
        { name: 'small.txt', content: randomBytes(3000) },
        { name: 'exact-mib.bin', content: randomBytes(2 * 1024 * 1024) },
      ];
      for (const f of files) writeFileSync(join(dir, f.name), f.content);
      const { url, uploads, server } = await startParsingServer(slow);
      try {
        const client = new KsmClient({ baseUrl: url, apiKey: async () => 'k' });
        const results = await client.uploadFiles({ volume: 'v', embedding: 'e', doChunking: 2, files: files.map((f) => ({ path: join(dir, f.name) })) });
        assert.ok(results.every((r) => r.ok));
        assert.equal(uploads.length, 1);
        assert.deepEqual(uploads[0], [
          { field: 'volume', value: 'v' },
          { field: 'embedding', value: 'e' },
          { field: 'do_chunking', value: '2' },
          ...files.map((f) => ({ field: 'file', filename: f.name, sha256: createHash('sha256').update(f.content).digest('hex') })),
        ]);
      } finally {
        server.close();
        server.closeAllConnections();
      }
    });
  }
});
