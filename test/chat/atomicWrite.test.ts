// The conversation files' writes: whole new content or the old one, never a torn file or a
// leftover temp file, also when the write fails or several writes to one file overlap.
// (That the folder is fsynced after the rename cannot be observed without a power cut.)
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotARegularFileError, readFileNoFollow, writeFileAtomic } from '../../src/common/core/atomicWrite';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import { CONVERSATION_SCHEMA, type StoredConversation } from '../../src/chat/core/conversationModel';

describe('chat: atomic file writes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-atomic-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads only a regular file at the path: a symbolic link (even to a file of ours), a folder or a FIFO is refused, never followed or waited on', async () => {
    const file = join(dir, 'c1.json');
    writeFileSync(file, '{"v":1}');
    assert.equal(await readFileNoFollow(file), '{"v":1}');
    symlinkSync(file, join(dir, 'link.json'));
    await assert.rejects(readFileNoFollow(join(dir, 'link.json')), (error) => error instanceof NotARegularFileError && error.link);
    mkdirSync(join(dir, 'folder.json'));
    await assert.rejects(readFileNoFollow(join(dir, 'folder.json')), (error) => error instanceof NotARegularFileError && !error.link);
    if (process.platform !== 'win32') {
      execFileSync('mkfifo', [join(dir, 'fifo.json')]);
      await assert.rejects(readFileNoFollow(join(dir, 'fifo.json')), (error) => error instanceof NotARegularFileError && !error.link);
    }
    await assert.rejects(readFileNoFollow(join(dir, 'missing.json')), { code: 'ENOENT' });
  });

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

  // write-file-atomic itself resolves a link at the path and writes where it leads.
  (process.platform === 'win32' ? it.skip : it)('never writes through a symbolic link at the path (the link and where it leads stay as they were)', async () => {
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'precious');
    const folder = join(dir, 'store');
    mkdirSync(folder);
    symlinkSync(victim, join(folder, 'index.json'));
    await assert.rejects(writeFileAtomic(join(folder, 'index.json'), '[]'), /symbolic link/);
    assert.equal(readFileSync(victim, 'utf8'), 'precious');
    assert.equal(readlinkSync(join(folder, 'index.json')), victim);
    assert.deepEqual(readdirSync(folder), ['index.json'], 'no temp file left');
    // A dangling link would have had the file created where it points.
    symlinkSync(join(dir, 'elsewhere', 'x.json'), join(folder, 'dangling.json'));
    mkdirSync(join(dir, 'elsewhere'));
    await assert.rejects(writeFileAtomic(join(folder, 'dangling.json'), '{}'), /symbolic link/);
    assert.deepEqual(readdirSync(join(dir, 'elsewhere')), []);
  });

  (process.platform === 'win32' ? it.skip : it)('a conversation store with a link at its index or a conversation file writes nothing through it', async () => {
    const root = join(dir, 'chat');
    mkdirSync(join(root, 'conversations'), { recursive: true });
    const victims = { index: join(dir, 'victim-index'), conversation: join(dir, 'victim-conversation') };
    for (const path of Object.values(victims)) writeFileSync(path, 'precious');
    const id = 'c-0123456789abcdef';
    symlinkSync(victims.index, join(root, 'index.json'));
    symlinkSync(victims.conversation, join(root, 'conversations', `${id}.json`));
    const conversation = { schema: CONVERSATION_SCHEMA, id, title: 't', mode: 'chat', model: 'm', parameters: {}, turns: [], createdAt: 1, updatedAt: 1, pendingAttachments: [] };
    const problems: string[] = [];
    const store = new ConversationStore(root, (problem) => problems.push(problem.reason));
    // The store's reads meet each link first: it is moved aside to corrupt/ as found (not followed), then a real file is written in its place.
    await store.save(conversation as unknown as StoredConversation);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.equal(readFileSync(victims.index, 'utf8'), 'precious');
    assert.equal(readFileSync(victims.conversation, 'utf8'), 'precious');
    assert.equal(lstatSync(join(root, 'index.json')).isFile(), true);
    assert.equal(JSON.parse(readFileSync(join(root, 'conversations', `${id}.json`), 'utf8')).id, id);
    assert.deepEqual(
      readdirSync(join(root, 'corrupt'))
        .map((name) => readlinkSync(join(root, 'corrupt', name)))
        .sort(),
      [victims.conversation, victims.index].sort(),
    );
  });
});
