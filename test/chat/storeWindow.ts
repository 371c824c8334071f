// A second "window": a separate process with its own ConversationStore on a shared root,
// driven by the two-window tests (test/chat/storeWindows.test.ts). Prints one JSON line
// per step so the test can act between steps.
import { ConversationStore } from '../../src/chat/core/conversationStore';
import { newTurnId } from '../../src/chat/core/conversationModel';
import { setTimeout as sleep } from 'node:timers/promises';

const [root, command, id, ...args] = process.argv.slice(2);

async function main(): Promise<void> {
  const store = new ConversationStore(root);
  const conversation = await store.load(id);
  if (!conversation) throw new Error(`no conversation ${id}`);
  if (command === 'add-turns') {
    const [count, prefix] = [Number(args[0]), args[1]];
    for (let i = 0; i < count; i++) {
      conversation.turns.push({ id: newTurnId(), role: 'user', content: `${prefix} ${i}`, createdAt: Date.now() });
      conversation.updatedAt = Date.now();
      await store.save(conversation);
    }
  } else if (command === 'stream') {
    // Streams an answer in checkpoints, waits for "finish" on stdin, then completes it.
    const answer = { id: newTurnId(), role: 'assistant' as const, content: '', state: 'streaming' as const, createdAt: Date.now() };
    conversation.turns.push(answer);
    for (let i = 0; i < 5; i++) {
      answer.content += `partial ${i}. `;
      await store.save(conversation);
    }
    report({ step: 'streaming', turnId: answer.id, content: answer.content });
    await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
    process.stdin.destroy();
    Object.assign(answer, { content: args[0], state: 'done' });
    await store.save(conversation);
    report({ step: 'done' });
    await sleep(10);
  }
  await store.flush();
  report({ step: 'exit' });
}

function report(line: object): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
