// A crash mid-answer (VS Code killed, extension host gone) must not lose the conversation:
// the streaming answer reaches the disk in checkpoints, and a store opened after the crash
// shows it as interrupted with the text that had arrived.
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { ChatSession } from '../../src/chat/panel/chatSession';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import type { StoredConversation } from '../../src/chat/core/conversationModel';

describe('chat: crash safety of a streaming answer', () => {
  let emulator: RunningEmulator;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-chat-crash-'));
    // Slow tokens, so the answer streams for far longer than one checkpoint interval.
    emulator = await startEmulator({ port: 0, dataDir: join(dir, 'emulator'), testControls: true, tokenDelayMs: 25, responseWords: 80 });
  });
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checkpoints the partial answer while it streams; after a crash it loads as interrupted with its text', async () => {
    const storeDir = join(dir, 'store');
    const session = new ChatSession(
      new ConversationStore(storeDir),
      {
        getService: () => new KsmClient({ baseUrl: emulator.url, apiKey: async () => emulator.apiKey }),
        getOptions: () => ({ models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' }),
        getVolumes: () => [],
        post: () => undefined,
        log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
      },
      { checkpointMs: 50 },
    );
    let finished = false;
    const running = session.send('Tell me everything about checkpoints').finally(() => (finished = true));
    const id = (await session.current()).id;
    const file = join(storeDir, 'conversations', `${id}.json`);

    // Wait until a checkpoint with streamed text is on disk, while the answer still streams.
    // send() writes the question before it asks, but asynchronously: until that first write
    // lands (slow fsync on a busy machine) there is no file yet. The wait is bounded by the
    // answer itself: once it ends, no checkpoint can come.
    let snapshot: StoredConversation | undefined;
    while (!finished && !snapshot) {
      await sleep(10);
      const onDisk = readIfWritten(file);
      if (onDisk?.turns[1]?.state === 'streaming' && onDisk.turns[1].content.length > 0) snapshot = onDisk;
    }
    assert.ok(snapshot, 'a checkpoint with partial text reached the disk before the answer ended');
    // "Crash": keep the file exactly as it was on disk at that moment.
    const crashDir = join(dir, 'after-crash');
    mkdirSync(join(crashDir, 'conversations'), { recursive: true });
    copyFileSync(file, join(crashDir, 'conversations', `${id}.json`));

    session.stop();
    await running;
    const recovered = await new ConversationStore(crashDir).load(id);
    assert.equal(recovered?.turns[0].content, 'Tell me everything about checkpoints');
    assert.equal(recovered?.turns[1].state, 'cut-off');
    assert.match(recovered?.turns[1].error ?? '', /Interrupted/);
    assert.equal(recovered?.turns[1].content, snapshot.turns[1].content);
    assert.deepEqual(
      (await new ConversationStore(crashDir).list()).map((s) => s.id),
      [id],
      'the recovered conversation is listed',
    );
  });
});

/** The conversation file as it is now, or undefined before its first (atomic) write. */
function readIfWritten(file: string): StoredConversation | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StoredConversation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
