// The bytes an upload puts on the wire are exactly the files' bytes, in order, with the
// multipart framing a standard parser (busboy) reads back, including when the server reads
// slowly (so the client's writes wait for 'drain'). Guards the buffer reuse in multipart.ts,
// and the small-file path (src/api/uploadFiles.ts: files up to SMALL_FILE_BYTES read whole
// before the request) around its threshold and when a file changes after it was planned.
import { strict as assert } from 'node:assert';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import busboy from 'busboy';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KsmClient } from '../../src/api/client';
import type { UploadProgress } from '../../src/api/types';
import { SMALL_FILE_BYTES } from '../../src/api/uploadFiles';

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

  const sha = (content: Buffer) => createHash('sha256').update(content).digest('hex');
  const fileParts = (parts: ReceivedPart[]) => parts.filter((p) => p.field === 'file').map((p) => ({ filename: p.filename, sha256: p.sha256 }));

  it('sends a batch of many small files and files around the small-file threshold byte for byte, with an exact Content-Length', async () => {
    const files = [
      ...Array.from({ length: 30 }, (_, i) => ({ name: `note-${i}.md`, content: randomBytes(1 + ((i * 977) % 4096)) })),
      { name: 'at-threshold.bin', content: randomBytes(SMALL_FILE_BYTES) },
      { name: 'over-threshold.bin', content: randomBytes(SMALL_FILE_BYTES + 1) },
      { name: 'under-threshold.bin', content: randomBytes(SMALL_FILE_BYTES - 1) },
      { name: 'large.bin', content: randomBytes(3 * 1024 * 1024 + 7) },
      { name: 'empty.md', content: Buffer.alloc(0) },
    ];
    for (const f of files) writeFileSync(join(dir, f.name), f.content);
    const { url, uploads, server } = await startParsingServer(false);
    try {
      const lengths: number[] = [];
      server.prependListener('request', (req) => lengths.push(Number(req.headers['content-length'])));
      const progress: UploadProgress[] = [];
      const client = new KsmClient({ baseUrl: url, apiKey: async () => 'k' });
      const results = await client.uploadFiles(
        { volume: 'v', embedding: 'e', files: files.map((f) => ({ path: join(dir, f.name) })) },
        { batch: { maxFiles: 100 }, onProgress: (p) => progress.push(p) },
      );
      assert.ok(results.every((r) => r.ok));
      assert.equal(uploads.length, 1, 'one request');
      assert.deepEqual(
        fileParts(uploads[0]),
        files.map((f) => ({ filename: f.name, sha256: sha(f.content) })),
      );
      const total = files.reduce((sum, f) => sum + f.content.length, 0);
      assert.equal(progress.at(-1)!.bytesSent, total);
      assert.equal(progress.at(-1)!.bytesTotal, total);
      assert.ok(lengths[0] > total, 'the declared length covers the content and its framing');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('sends what a small file holds when its batch is sent, after it grew, shrank, outgrew the threshold or emptied since it was planned', async () => {
    const names = ['first.md', 'grows.md', 'shrinks.md', 'outgrows.md', 'empties.md'];
    for (const name of names) writeFileSync(join(dir, name), `planned content of ${name}\n`);
    const now: Record<string, Buffer> = {
      'grows.md': randomBytes(9000),
      'shrinks.md': Buffer.from('s'),
      'outgrows.md': randomBytes(SMALL_FILE_BYTES * 2 + 3),
      'empties.md': Buffer.alloc(0),
    };
    const { url, uploads, server } = await startParsingServer(false);
    try {
      const progress: UploadProgress[] = [];
      const client = new KsmClient({ baseUrl: url, apiKey: async () => 'k' });
      const results = await client.uploadFiles(
        { volume: 'v', embedding: 'e', files: names.map((name) => ({ path: join(dir, name) })) },
        {
          batch: { maxFiles: 1 },
          onProgress: (p) => progress.push(p),
          // The first batch is answered before the others are read: change them now.
          onFileResult: (r) => {
            if (r.source.path.endsWith('first.md')) for (const [name, content] of Object.entries(now)) writeFileSync(join(dir, name), content);
          },
        },
      );
      assert.ok(results.every((r) => r.ok));
      assert.deepEqual(
        uploads.slice(1).map((parts) => fileParts(parts)[0]),
        Object.entries(now).map(([name, content]) => ({ filename: name, sha256: sha(content) })),
      );
      const sent = Buffer.byteLength('planned content of first.md\n') + Object.values(now).reduce((sum, c) => sum + c.length, 0);
      assert.equal(progress.at(-1)!.bytesSent, sent);
      assert.equal(progress.at(-1)!.bytesTotal, sent, 'the total follows the sizes actually sent');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('fails alone a small file that vanished, became a folder or a FIFO after it was planned; its batch mates are sent', async function () {
    const names = ['first.md', 'stays-1.md', 'vanishes.md', 'becomes-folder.md', 'becomes-fifo.md', 'stays-2.md'];
    for (const name of names) writeFileSync(join(dir, name), `content of ${name}`);
    writeFileSync(join(dir, 'first.md'), 'f'.repeat(1000)); // alone in the first batch (maxBytes)
    const { url, uploads, server } = await startParsingServer(false);
    try {
      const client = new KsmClient({ baseUrl: url, apiKey: async () => 'k' });
      const results = await client.uploadFiles(
        { volume: 'v', embedding: 'e', files: names.map((name) => ({ path: join(dir, name) })) },
        {
          batch: { maxFiles: 10, maxBytes: 1000 },
          onFileResult: (r) => {
            if (!r.source.path.endsWith('first.md')) return;
            rmSync(join(dir, 'vanishes.md'));
            rmSync(join(dir, 'becomes-folder.md'));
            mkdirSync(join(dir, 'becomes-folder.md'));
            rmSync(join(dir, 'becomes-fifo.md'));
            if (process.platform === 'win32') writeFileSync(join(dir, 'becomes-fifo.md'), 'content of becomes-fifo.md');
            else execFileSync('mkfifo', [join(dir, 'becomes-fifo.md')]); // a blocking open would hang the test
          },
        },
      );
      const outcome = (name: string) => results.find((r) => r.source.path.endsWith(name))!;
      assert.ok(outcome('stays-1.md').ok && outcome('stays-2.md').ok);
      const failed = (name: string) => {
        const r = outcome(name);
        return r.ok ? 'uploaded' : r.error.message;
      };
      assert.match(failed('vanishes.md'), /no longer exists/);
      assert.match(failed('becomes-folder.md'), /folder/);
      if (process.platform !== 'win32') assert.match(failed('becomes-fifo.md'), /not a regular file/);
      assert.deepEqual(
        uploads.map((parts) => fileParts(parts).map((p) => p.filename)),
        [['first.md'], ['stays-1.md', 'stays-2.md']],
      );
    } finally {
      server.close();
      server.closeAllConnections();
      rmSync(join(dir, 'becomes-folder.md'), { recursive: true, force: true });
    }
  });
});
