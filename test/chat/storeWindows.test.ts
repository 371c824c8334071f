// Two windows on one chat store (two VS Code windows with no folder share one workspace
// storage): each is a real process with its own ConversationStore. A window never
// overwrites the other's newer revision, turns both add are all kept, a live answer of the
// other window shows as "answering in another window" (and as interrupted once that window
// is gone), no temp file outlives a failed write on a full disk, and no write recreates a
// deleted store folder.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConversation, newTurnId, type StoredConversation } from '../../src/chat/core/conversationModel';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import type { ModelOptions } from '../../src/chat/protocol';

const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };
const WINDOW = join(__dirname, 'storeWindow.ts');

interface Window {
  child: ChildProcessWithoutNullStreams;
  next(step: string): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Starts the other window's process (node + tsx, as mocha runs). */
function startWindow(...args: string[]): Window {
  const child = spawn(process.execPath, ['--import', 'tsx', WINDOW, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    async next(step) {
      for (;;) {
        const line = await lines.next();
        if (line.done) throw new Error(`the window ended before '${step}': ${stderr}`);
        const parsed = JSON.parse(line.value) as Record<string, unknown>;
        if (parsed.step === step) return parsed;
      }
    },
  };
}

function conversation(): StoredConversation {
  const c = createConversation('chat', options, 1000);
  c.title = 'shared';
  c.turns.push({ id: newTurnId(), role: 'user', content: 'first question', createdAt: 1000 });
  return c;
}

function onDisk(root: string, id: string): StoredConversation {
  return JSON.parse(readFileSync(join(root, 'conversations', `${id}.json`), 'utf8')) as StoredConversation;
}

describe('chat: two windows on one conversation store (separate processes)', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ksm-two-windows-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps every turn when two windows add turns to one conversation at the same time', async () => {
    const c = conversation();
    await new ConversationStore(root).save(c);
    const a = startWindow(root, 'add-turns', c.id, '20', 'from A');
    const b = startWindow(root, 'add-turns', c.id, '20', 'from B');
    assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
    const turns = onDisk(root, c.id).turns.map((t) => t.content);
    assert.equal(turns.length, 41, turns.join(' | '));
    for (const prefix of ['from A', 'from B']) {
      assert.deepEqual(
        turns.filter((t) => t.startsWith(prefix)),
        Array.from({ length: 20 }, (_, i) => `${prefix} ${i}`),
        `${prefix} in order`,
      );
    }
    const index = JSON.parse(readFileSync(join(root, 'index.json'), 'utf8')) as unknown[];
    assert.equal(index.length, 1);
  });

  it("shows the other window's live answer as answering there, and never overwrites its finished answer with a stale copy", async () => {
    const c = conversation();
    const mine = new ConversationStore(root);
    await mine.save(c);
    const finished = `The finished answer. ${'x'.repeat(2_570)}`;
    const other = startWindow(root, 'stream', c.id, finished);
    try {
      const { turnId } = (await other.next('streaming')) as { turnId: string };
      // This window opens the conversation while the other one streams into it.
      const seen = await mine.load(c.id);
      const live = seen!.turns.find((t) => t.id === turnId)!;
      assert.equal(live.state, 'elsewhere', 'not "interrupted" while the other window answers');
      assert.equal(live.error, undefined);
      assert.match(live.content, /partial 4/);

      other.child.stdin.write('finish\n');
      await other.next('done');
      // This window saves its (stale) copy after a change of its own: a rename.
      seen!.title = 'renamed here';
      seen!.updatedAt = Date.now();
      await mine.save(seen!);
      const stored = onDisk(root, c.id);
      const answer = stored.turns.find((t) => t.id === turnId)!;
      assert.equal(answer.state, 'done');
      assert.equal(answer.content, finished, 'the finished answer survives the stale save');
      assert.equal(stored.title, 'renamed here', "this window's own change is kept");
      assert.equal(seen!.turns.find((t) => t.id === turnId)!.content, finished, 'and this window now shows the finished answer');
      assert.equal(await other.exited, 0);
    } finally {
      other.child.kill('SIGKILL');
    }
  });

  it('shows the answer as interrupted once the window streaming it is gone', async () => {
    const c = conversation();
    const mine = new ConversationStore(root);
    await mine.save(c);
    const other = startWindow(root, 'stream', c.id, 'never');
    const { turnId } = (await other.next('streaming')) as { turnId: string };
    other.child.kill('SIGKILL');
    await other.exited;
    const seen = await mine.load(c.id);
    const answer = seen!.turns.find((t) => t.id === turnId)!;
    assert.equal(answer.state, 'cut-off');
    assert.match(answer.error ?? '', /Interrupted/);
  });

  it('never recreates a store folder deleted after a listing rebuilt the index', async () => {
    const store = new ConversationStore(root);
    await store.save(conversation());
    unlinkSync(join(root, 'index.json'));
    const reader = new ConversationStore(root);
    await reader.list();
    rmSync(root, { recursive: true, force: true });
    await reader.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(!existsSync(root), 'the deleted folder stayed deleted');
  });

  describe('on a tiny full file system', () => {
    let mountPoint: string | undefined;
    before(function () {
      const why = tinyFileSystemUnavailable();
      if (why) {
        // eslint-disable-next-line no-console
        console.log(`      skipped: ${why}`);
        this.skip();
      }
    });

    beforeEach(() => {
      mountPoint = join(root, 'tiny');
      mkdirSync(mountPoint);
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]);
      assert.equal(mounted.status, 0, String(mounted.stderr));
    });
    afterEach(() => {
      if (mountPoint) spawnSync('umount', [mountPoint]);
    });

    it('leaves no temp file after a save that fails for lack of space, and saves again once there is room', async () => {
      const storeRoot = join(mountPoint!, 'store');
      const store = new ConversationStore(storeRoot);
      const c = conversation();
      await store.save(c);
      const before = readFileSync(join(storeRoot, 'conversations', `${c.id}.json`), 'utf8');
      const filler = join(mountPoint!, 'filler');
      fillUp(filler);
      c.turns.push({ id: newTurnId(), role: 'assistant', content: 'y'.repeat(64 * 1024), state: 'done', createdAt: 2000 });
      for (let i = 0; i < 3; i++) await assert.rejects(store.save(c), /ENOSPC/);
      // Whatever a temp file is called, it is neither a conversation, the index nor a folder of the store.
      const expected = new Set([`${c.id}.json`, 'conversations', 'index.json', 'live']);
      const temps = () => [...readdirSync(join(storeRoot, 'conversations')), ...readdirSync(storeRoot)].filter((n) => !expected.has(n));
      assert.deepEqual(temps(), [], 'no temp file outlives a failed write');
      assert.equal(readFileSync(join(storeRoot, 'conversations', `${c.id}.json`), 'utf8'), before, 'the previous version is intact');
      rmSync(filler);
      await store.save(c);
      assert.equal(onDisk(storeRoot, c.id).turns.length, 2);
      assert.deepEqual(temps(), []);
    });
  });
});

/** Why a small tmpfs cannot be mounted here, or undefined when it can. */
function tinyFileSystemUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'a tmpfs needs Linux';
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const probe = mkdtempSync(join(tmpdir(), 'ksm-tmpfs-probe-'));
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
    if (mounted.status !== 0) return `mount failed: ${String(mounted.stderr).trim() || mounted.error?.message}`;
    spawnSync('umount', [probe]);
    return undefined;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

/** Fills the file system holding `path` until a write fails. */
function fillUp(path: string): void {
  const block = Buffer.alloc(4096, 1);
  const fd = openSync(path, 'w');
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}
