// The conversation files' writes: whole new content or the old one, never a torn file or a
// leftover temp file, also when the write fails or several writes to one file overlap.
// (That the folder is fsynced after the rename cannot be observed without a power cut.)
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../../src/common/core/atomicWrite';

describe('chat: atomic file writes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-atomic-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates, then replaces a file whole, leaving nothing else in the folder', async () => {
    const path = join(dir, 'conversations', 'c1.json');
    mkdirSync(join(dir, 'conversations'));
    await writeFileAtomic(path, '{"v":1}');
    await writeFileAtomic(path, '{"v":2,"text":"ünïcödé"}');
    assert.equal(readFileSync(path, 'utf8'), '{"v":2,"text":"ünïcödé"}');
    assert.deepEqual(readdirSync(join(dir, 'conversations')), ['c1.json']);
  });

  it('never creates a missing folder: a store folder deleted meanwhile stays deleted', async () => {
    await assert.rejects(writeFileAtomic(join(dir, 'gone', 'index.json'), '[]'), /ENOENT/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('keeps the old content and removes its temp file when the write fails', async () => {
    const path = join(dir, 'taken');
    mkdirSync(path); // a folder where the file should go: the final rename fails
    writeFileSync(join(path, 'inside'), 'old');
    await assert.rejects(writeFileAtomic(path, 'new'));
    assert.deepEqual(readdirSync(dir), ['taken']);
    assert.equal(readFileSync(join(path, 'inside'), 'utf8'), 'old');
  });

  it('ends with one whole version when writes to one file overlap', async () => {
    const path = join(dir, 'index.json');
    const versions = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(10_000 * (i + 1)) }));
    await Promise.all(versions.map((text) => writeFileAtomic(path, text)));
    assert.ok(versions.includes(readFileSync(path, 'utf8')));
    assert.deepEqual(readdirSync(dir), ['index.json']);
  });
});
