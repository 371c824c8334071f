// An agent `error` event echoing the key (an upstream that echoes the Authorization
// header) must not bring the key into the turn's error: not into the conversation file,
// not into any message posted to the webview, not into the log. Keys with `" ' , \ / + & %`
// and a 3-character key, over real HTTP against the emulator's fault injection.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator/server';
import { KsmClient } from '../../src/api/client';
import { ChatSession } from '../../src/chat/panel/chatSession';
import { ConversationStore } from '../../src/chat/core/conversationStore';
import type { HostToWebview, ModelOptions } from '../../src/chat/protocol';

const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };
const KEYS: Record<string, string[]> = { [`Xk9Q"vQ7'WzJ,\\/pRt+&%ZyW`]: ['Xk9Q', 'vQ7', 'WzJ', 'pRt', 'ZyW'], a7Q: ['a7Q'] };

describe('chat: a turn error never holds the key', () => {
  let emulator: RunningEmulator;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-turn-error-'));
    emulator = await startEmulator({
      port: 0,
      dataDir: join(dir, 'emulator'),
      testControls: true,
      stepMs: 5,
      tokenDelayMs: 1,
      responseWords: 10,
      apiKeys: Object.fromEntries(Object.keys(KEYS).map((key, i) => [key, `user${i}`])),
    });
  });
  after(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [key, fragments] of Object.entries(KEYS)) {
    it(`agent error event echoing ${JSON.stringify(key)}: not in the conversation file, the webview messages or the log`, async () => {
      const storeDir = mkdtempSync(join(dir, 'store-'));
      const posted: HostToWebview[] = [];
      const logged: string[] = [];
      const log = (level: string) => (message: string) => void logged.push(`${level} ${message}`);
      const session = new ChatSession(
        new ConversationStore(storeDir),
        {
          getService: () =>
            new KsmClient({ baseUrl: emulator.url, apiKey: async () => key, logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }, logRequests: true }),
          getOptions: () => options,
          getVolumes: () => [],
          post: (m) => posted.push(m),
          log: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
          onAnswerFailed: (e) => logged.push(`failed ${String(e)}`),
        },
        { flushIntervalMs: 16, checkpointMs: 20 },
      );
      await session.newConversation('agent');
      const json = JSON.stringify(key).slice(1, -1);
      emulator.faults.add({
        kind: 'stream-error',
        path: '/v1/apps/chat-messages',
        afterEvents: 3,
        code: 401,
        message: `upstream rejected Authorization: Bearer ${key} (sent ${json.replace(/\//g, '\\/')}, ${encodeURIComponent(key)})`,
      });
      await session.send('What do my files say?');
      await session.idle();
      const conversation = await session.current();
      const answer = conversation.turns.at(-1)!;
      assert.match(answer.error ?? '', /upstream rejected Authorization: Bearer \*\*\*/, 'the error is shown, redacted');

      const files = readdirSync(join(storeDir, 'conversations')).map((name) => readFileSync(join(storeDir, 'conversations', name), 'utf8'));
      const places: Record<string, string> = { 'the conversation file': files.join('\n'), 'the webview messages': JSON.stringify(posted), 'the log': logged.join('\n') };
      assert.match(places['the conversation file'], /Bearer \*\*\*/);
      for (const [where, text] of Object.entries(places)) {
        for (const fragment of fragments) assert.ok(!text.includes(fragment), `${where} holds '${fragment}' of the key`);
      }
    });
  }
});
