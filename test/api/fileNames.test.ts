// Names survive the trip (D7): the client writes multipart names so a mainstream parser
// (busboy, as Express/multer and Fastify use it) receives them exactly, and duplicate
// detection compares names as the service stores them, so Replace triggers for them.
import { strict as assert } from 'node:assert';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { KsmClient } from '../../src/api/client';
import type { FileInfo } from '../../src/api/types';
import { planUploads } from '../../src/upload/core/duplicatePlanning';
import { useEmulator } from './harness';
import { startRawServer } from './rawServer';

/** Names a user's disk may hold that a careless encoding changes in transit. */
const AWKWARD = ['q"uote.txt', "it's (1) 100%22.txt", 'new\nline.txt', 'tab\tand\rcr.txt', 'naïve 名前 😀.txt', 'semi;colon=x,y.txt', 'plus+and&amp.txt'];
const WITH_BACKSLASH = ['back\\slash.txt', 'trailing\\', '\\"both\\".txt'];

/** The file names busboy reports for a multipart body, parsed as a server would. */
function namesBusboySees(req: IncomingMessage, body: Buffer, defParamCharset?: 'utf8'): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const names: string[] = [];
    const parser = busboy({ headers: req.headers, preservePath: true, ...(defParamCharset ? { defParamCharset } : {}) } as busboy.BusboyConfig);
    parser.on('file', (_field, stream, info) => {
      names.push(info.filename ?? '(none)');
      stream.resume();
    });
    parser.on('close', () => resolve(names));
    parser.on('error', reject);
    parser.end(body);
  });
}

describe('api: file names survive the trip (D7)', () => {
  const h = useEmulator();

  it('busboy (preservePath, default and UTF-8 charset) receives every name exactly as on disk', async () => {
    const seen: Record<string, string[]> = { latin1: [], utf8: [] };
    const raw = await startRawServer(async (req, res, body) => {
      const bytes = Buffer.from(body, 'utf8');
      seen.latin1 = await namesBusboySees(req, bytes);
      seen.utf8 = await namesBusboySees(req, bytes, 'utf8');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 200, infoz: seen.utf8.map((filename, i) => ({ uuid: `u${i}`, filename, status: 'uploaded' })) }));
    });
    try {
      const names = [...AWKWARD, ...WITH_BACKSLASH];
      const client = new KsmClient({ baseUrl: raw.url, apiKey: async () => 'k' });
      const results = await client.uploadFiles({ volume: 'names', embedding: 'emu-embed', files: names.map((name, i) => ({ path: h.file(name, `content ${i}`) })) });
      assert.ok(results.every((r) => r.ok));
      assert.deepEqual(seen.utf8, names);
      assert.deepEqual(seen.latin1, names, "busboy's default Latin-1 reading of filename= is overridden by filename*");
    } finally {
      await raw.close();
    }
  });

  it('the emulator stores the names exactly, and duplicate detection finds every one of them again', async () => {
    const paths = AWKWARD.map((name, i) => h.file(name, `first ${i}`));
    const results = await h.client().uploadFiles({ volume: 'names', embedding: 'emu-embed', files: paths.map((path) => ({ path })) });
    assert.deepEqual(
      results.map((r) => r.ok && r.info.filename),
      AWKWARD,
    );
    const listed: FileInfo[] = [];
    for await (const info of h.client().listAllFiles('names')) listed.push(info);
    assert.deepEqual(listed.map((f) => f.filename).sort(), [...AWKWARD].sort());

    const asked: string[] = [];
    const plan = await planUploads(
      paths.map((path) => ({ path, size: 1, displayPath: path })),
      listed,
      async (question) => {
        asked.push(question.filename);
        return { choice: 'replace', applyToAll: false };
      },
    );
    assert.deepEqual(asked, AWKWARD, 'every re-uploaded name is recognised as already in the volume');
    assert.deepEqual(
      plan.uploads.map((u) => u.replaces.map((r) => r.filename)),
      AWKWARD.map((name) => [name]),
    );
  });
});
