// The pure text side of the chat: what each mode sends, titles, the composer prefill and
// the Markdown export.
import { strict as assert } from 'node:assert';
import { createConversation, newTurnId, titleFromQuestion } from '../../src/chat/core/conversationModel';
import { codePrefill } from '../../src/common/core/chatText';
import { conversationToMarkdown } from '../../src/chat/core/conversationText';
import type { ModelOptions, Turn } from '../../src/chat/core/conversationModel';
import { buildAgentRequest, buildChatRequest } from '../../src/chat/core/requestBuilder';

const options: ModelOptions = { models: ['emu-chat', 'emu-reasoner'], reasoningModels: ['emu-reasoner'], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-reasoner' };
const user = (content: string, extra: Partial<Turn> = {}): Turn => ({ id: newTurnId(), role: 'user', content, createdAt: 1, ...extra });
const assistant = (content: string, extra: Partial<Turn> = {}): Turn => ({ id: newTurnId(), role: 'assistant', content, state: 'done', createdAt: 1, ...extra });

describe('chat: requests, titles, prefill and export', () => {
  it('sends the system prompt, the whole history and the parameters in chat mode', () => {
    const c = createConversation('chat', options);
    c.parameters = { systemPrompt: 'Answer in French', temperature: 0.5, topP: 0.9, maxTokens: 64, responseFormat: 'json_object' };
    c.turns.push(user('one'), assistant('uno'), user('two'), assistant('', { state: 'error', error: 'boom' }), user('three'));
    const request = buildChatRequest(c, options.reasoningModels);
    assert.deepEqual(request.messages, [
      { role: 'system', content: 'Answer in French' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'uno' },
      { role: 'user', content: 'two' },
      { role: 'user', content: 'three' },
    ]);
    assert.equal(request.model, 'emu-chat');
    assert.equal(request.temperature, 0.5);
    assert.equal(request.top_p, 0.9);
    assert.equal(request.max_completion_tokens, 64);
    assert.deepEqual(request.response_format, { type: 'json_object' });
    assert.equal(request.reasoning, undefined);
  });

  it('sends reasoning options only to models listed as reasoning models', () => {
    const c = createConversation('chat', options);
    c.turns.push(user('q'));
    c.parameters = { reasoningEffort: 'high' };
    assert.equal(buildChatRequest(c, options.reasoningModels).reasoning, undefined, 'emu-chat has no reasoning (D12: 400)');
    c.model = 'emu-reasoner';
    assert.deepEqual(buildChatRequest(c, options.reasoningModels).reasoning, { effort: 'high' });
    c.parameters = { reasoningBudget: 200 };
    assert.deepEqual(buildChatRequest(c, options.reasoningModels).reasoning, { effort: null, budget_tokens: 200 });
  });

  it('sends only the new question, the thread, files and context in agent mode', () => {
    const c = createConversation('agent', options);
    c.threadId = 'thr_abc';
    c.enableThinking = true;
    const question = user('what changed?', { attachments: [{ fileId: 'f1', filename: 'notes.md', size: 12, volume: 'docs' }] });
    c.turns.push(user('earlier'), assistant('earlier answer'), question);
    assert.deepEqual(buildAgentRequest(c, question, ['docs', 'team']), {
      agent_id: 'rag-agent',
      thread_id: 'thr_abc',
      query: 'what changed?',
      files: [{ file_id: 'f1', filename: 'notes.md', size: 12 }],
      context: { model: 'emu-reasoner', enable_thinking: true, volumes: ['docs', 'team'] },
    });
    c.threadId = null;
    const first = buildAgentRequest(c, user('q'), []);
    assert.equal(first.thread_id, null);
    assert.equal(first.files, undefined);
  });

  it('titles a conversation from the first line of its first question', () => {
    assert.equal(titleFromQuestion('How do I upload a folder?\nMore detail'), 'How do I upload a folder?');
    assert.equal(titleFromQuestion('```ts\ncode\n```'), 'code');
    assert.equal(titleFromQuestion('   \n  '), 'New chat');
    // Kept whole (a rename starts from it; views shorten it for display), capped like a rename.
    const long = 'word '.repeat(30).trim();
    assert.equal(titleFromQuestion(long), long);
    const tooLong = titleFromQuestion('word '.repeat(60));
    assert.ok(tooLong.length <= 200 && tooLong.endsWith('…'));
  });

  it('prefills code as a language-tagged fence that survives backticks inside the code', () => {
    assert.equal(codePrefill('a.ts', 'typescript', 'let x = 1;', { start: 3, end: 3 }), '`a.ts` (lines 3-3):\n\n```typescript\nlet x = 1;\n```\n\n');
    const tricky = codePrefill('README.md', 'markdown', 'text\n```js\ncode\n```\n');
    assert.ok(tricky.includes('````markdown\ntext\n```js\ncode\n```\n````'), tricky);
  });

  it('exports a conversation as Markdown with states, reasoning and sources', () => {
    const c = createConversation('agent', options);
    c.title = 'Volumes';
    c.turns.push(
      user('what is in docs?', {
        attachments: [{ fileId: 'f1', filename: 'notes.md', size: 3, volume: 'docs' }],
        code: [{ id: 'x-000000000001', filename: 'a.py', languageId: 'python', lines: { start: 1, end: 1 }, text: 'x = 1' }],
      }),
      assistant('It holds notes [1], [2].', {
        reasoning: 'looked at notes',
        citations: [
          { fileId: 'f1', filename: 'notes.md', volume: 'docs', markers: [1] },
          { fileId: 'f2', filename: 'mine.md', volume: '{dev}', volumeLabel: 'My files', markers: [2, 3] },
        ],
      }),
      user('more?'),
      assistant('Partial', { state: 'cut-off', error: 'The answer was cut off.' }),
    );
    const md = conversationToMarkdown(c);
    assert.ok(md.startsWith('# Volumes\n'));
    for (const part of [
      '## You',
      '_Files: `notes.md`_',
      '## Assistant',
      '`a.py` (lines 1-1):\n\n```python\nx = 1\n```\n\nwhat is in docs?',
      'It holds notes [1], [2].',
      '<summary>Reasoning</summary>',
      'looked at notes',
      '- [1] `notes.md` (docs)',
      '- [2][3] `mine.md` (My files)',
      '> The answer was cut off.',
      'Agent `rag-agent`',
    ]) {
      assert.ok(md.includes(part), `missing ${part}\n${md}`);
    }
  });
});
