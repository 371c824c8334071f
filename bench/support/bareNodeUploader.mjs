// The least a Node client can do for sync-small-files' first figure: the same requests of 20
// files, 3 in flight, as curl sends them, with nothing else (no hashing, no records, no
// checks, no undici: node:http and each file read whole as its request is built). Not a
// product: printed beside curl (`node-bare-vs-curl`) so the curl target can be read against
// what any Node client on this machine starts from.
// Run: node bareNodeUploader.mjs <base URL> <key> <volume> <folder> <paths.json> <batch> <parallel>
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';

const [baseUrl, key, volume, folder, pathsFile, batchText, parallelText] = process.argv.slice(2);
const paths = JSON.parse(readFileSync(pathsFile, 'utf8'));
const batch = Number(batchText);
const parallel = Number(parallelText);
const agent = new http.Agent({ keepAlive: true, maxSockets: parallel });
const target = new URL('/ksm/rag/v5/files', baseUrl);

function body(rels) {
  const boundary = `----bare${Math.random().toString(16).slice(2)}`;
  const parts = [];
  const field = (name, value) => parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  field('volume', volume);
  field('embedding', 'emu-embed');
  field('do_chunking', '0');
  for (const rel of rels) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${rel.split('/').join('__')}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(readFileSync(join(folder, rel)), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { boundary, data: Buffer.concat(parts) };
}

function send(rels) {
  const { boundary, data } = body(rels);
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': data.length };
    const request = http.request(target, { method: 'POST', agent, headers }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`))));
    });
    request.on('error', reject);
    request.end(data);
  });
}

let next = 0;
async function worker() {
  while (next < paths.length) {
    const rels = paths.slice(next, next + batch);
    next += batch;
    await send(rels);
  }
}
await Promise.all(Array.from({ length: parallel }, worker));
agent.destroy();
