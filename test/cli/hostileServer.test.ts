// The built `ksm` (a child process) against a hostile or broken server at KSM_BASE_URL: an
// answer that never ends, or that repeats the first page for every offset, ends the command
// with one clear message and a failure code instead of paging, buffering or hanging forever.
import { strict as assert } from 'node:assert';
import type { ServerResponse } from 'node:http';
import { startRawServer, sseHead, type RawServer } from '../api/rawServer';
import { runKsm } from './runKsm';

const KEY = 'sk-hostile-cli-0123456789abcdef';

/** Writes `piece` until the client goes away, honouring backpressure. */
function flood(res: ServerResponse, piece: string): void {
  const write = () => {
    while (!res.destroyed && res.write(piece));
    if (!res.destroyed) res.once('drain', write);
  };
  res.on('error', () => undefined);
  write();
}

describe('ksm against a hostile server at the base URL (built, as a child process)', function () {
  this.timeout(60_000);
  let raw: RawServer | undefined;
  const ksm = (args: string[]) => runKsm(args, { KSM_BASE_URL: raw!.url, KSM_API_KEY: KEY, KSM_MODEL: 'm' });
  before(async () => {
    await runKsm(['--version'], {}); // builds dist/cli.js once if it is stale
  });
  afterEach(async () => {
    await raw?.close();
    raw = undefined;
  });

  it('ls stops at a listing that answers the same page for every offset', async () => {
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 200, total: 1e12, infoz: [{ uuid: 'a', filename: 'a.txt' }] }));
    });
    const run = await ksm(['ls', 'docs']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /already listed for offset 1/);
    assert.equal(raw.requests.length, 2);
  });

  it('ls refuses an endless listing body with one message', async () => {
    raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"code":200,"infoz":[');
      flood(res, '{"uuid":"u","filename":"f"},'.repeat(2000));
    });
    const run = await ksm(['ls', 'docs']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /larger than 32 MiB/);
    assert.ok(!run.stderr.includes(KEY));
  });

  it('ask stops a stream whose line never ends, after printing what came before', async () => {
    raw = await startRawServer((_req, res) => {
      sseHead(res);
      res.write('data: {"choices":[{"delta":{"content":"partial answer"}}]}\n\n');
      res.write('data: {"choices":[{"delta":{"content":"');
      flood(res, 'x'.repeat(64 * 1024));
    });
    const run = await ksm(['ask', 'question']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /larger than 16 MiB/);
    assert.match(run.stdout, /partial/);
  });
});
