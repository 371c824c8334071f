// What "Ask About Selection/File" attach and what the model then reads: a chip's code by
// size (attach, ask first over 50 KB, refuse over the documented limit), the limit on all the
// code of one question, and the request: the code as fenced blocks before the question,
// while the turn keeps only what the user typed.
import { strict as assert } from 'node:assert';
import { askAnyway, codeContextProblem, codeLabel, LARGE_FILE_CHARS, planAskAboutFile, planAskAboutSelection } from '../../src/chat/core/askAboutFile';
import { createConversation, type CodeContext, type ModelOptions, type Turn } from '../../src/chat/core/conversationModel';
import { agentSearchScope, buildAgentRequest, buildChatRequest, questionForModel } from '../../src/chat/core/requestBuilder';
import { MAX_CODE_CONTEXT_CHARS, MAX_TEXT_CHARS } from '../../src/common/core/chatText';

const linesOf = (chars: number): string =>
  'x'
    .repeat(79)
    .concat('\n')
    .repeat(Math.ceil(chars / 80))
    .slice(0, chars);
const options: ModelOptions = { models: ['emu-chat'], reasoningModels: [], defaultModel: 'emu-chat', agentId: 'rag-agent', agentModel: 'emu-chat' };
const chip = (id: string, text: string, lines?: { start: number; end: number }): CodeContext => ({ id, filename: 'release.py', languageId: 'python', text, ...(lines ? { lines } : {}) });

describe('chat: code sent as context (Ask About Selection / File)', () => {
  it('attaches a small file whole, under its name and language, with nothing pasted', () => {
    assert.deepEqual(planAskAboutFile('release.py', 'python', 'def ship():\n    return True\n'), {
      kind: 'attach',
      code: { filename: 'release.py', languageId: 'python', text: 'def ship():\n    return True\n' },
    });
  });

  it('attaches a 50 KB file without asking, asks for one character more, and a 70 KB file is attached whole after asking', () => {
    assert.equal(LARGE_FILE_CHARS, 50 * 1024);
    assert.equal(planAskAboutFile('a.txt', 'plaintext', linesOf(LARGE_FILE_CHARS)).kind, 'attach');
    const plan = planAskAboutFile('big.log', 'log', linesOf(70 * 1024));
    assert.equal(plan.kind, 'confirm');
    if (plan.kind !== 'confirm') return;
    assert.equal(plan.confirmLabel, askAnyway());
    assert.match(plan.message, /^big\.log is 70 KB\. Large files may exceed the model's context/);
    assert.equal(plan.code.text, linesOf(70 * 1024), 'the whole file, not a cut');
  });

  it('refuses code over the documented limit with the numbers and what to do instead', () => {
    assert.ok(MAX_CODE_CONTEXT_CHARS < MAX_TEXT_CHARS, 'the limit leaves room for the question');
    assert.equal(planAskAboutFile('a.ts', 'typescript', linesOf(MAX_CODE_CONTEXT_CHARS)).kind, 'confirm', 'at the limit: asked, not refused');
    const file = planAskAboutFile('a.ts', 'typescript', linesOf(MAX_CODE_CONTEXT_CHARS + 1));
    assert.equal(file.kind, 'refuse');
    assert.match(
      file.kind === 'refuse' ? file.message : '',
      /^a\.ts is too large to send with a question \(98,001 characters; the limit is 98,000 characters\)\. .*Ask About Selection.*upload the file to a volume/,
    );
    const selection = planAskAboutSelection('a.ts', 'typescript', linesOf(MAX_CODE_CONTEXT_CHARS + 1), { start: 1, end: 1300 });
    assert.match(selection.kind === 'refuse' ? selection.message : '', /^The selection is too large to send \(98,001 characters; the limit is 98,000 characters\)\. Select less\.$/);
    assert.deepEqual(planAskAboutSelection('a.ts', 'typescript', 'x', { start: 3, end: 3 }), {
      kind: 'attach',
      code: { filename: 'a.ts', languageId: 'typescript', lines: { start: 3, end: 3 }, text: 'x' },
    });
  });

  it('keeps all the code of one question under the limit; the same file and lines replace their chip', () => {
    const half = linesOf(MAX_CODE_CONTEXT_CHARS / 2);
    const pending = [chip('x-000000000001', half, { start: 1, end: 10 })];
    assert.equal(codeContextProblem(pending, { filename: 'release.py', languageId: 'python', text: half, lines: { start: 20, end: 30 } }), undefined, 'exactly the limit fits');
    const problem = codeContextProblem(pending, { filename: 'release.py', languageId: 'python', text: `${half}y`, lines: { start: 20, end: 30 } });
    assert.match(problem ?? '', /^release\.py · lines 20-30 would bring the code sent with this question to 98,001 characters; the limit is 98,000 characters\. Remove a chip/);
    assert.equal(
      codeContextProblem(pending, { filename: 'release.py', languageId: 'python', text: linesOf(MAX_CODE_CONTEXT_CHARS), lines: { start: 1, end: 10 } }),
      undefined,
      'a replaced chip does not count twice',
    );
    assert.equal(codeLabel({ filename: 'a.py', lines: { start: 2, end: 9 } }), 'a.py · lines 2-9');
    assert.equal(codeLabel({ filename: 'a.py' }), 'a.py');
  });

  it('sends the code as fenced blocks before the question, in chat and agent mode, while the turn keeps only the question', () => {
    const question: Turn = {
      id: 't-000000000001',
      role: 'user',
      content: 'Why does it return True?',
      code: [chip('x-000000000001', 'def ship():\n    return True', { start: 3, end: 4 }), chip('x-000000000002', 'a = "```"\n')],
      createdAt: 0,
    };
    const expected = '`release.py` (lines 3-4):\n\n```python\ndef ship():\n    return True\n```\n\n`release.py`:\n\n````python\na = "```"\n````\n\nWhy does it return True?';
    assert.equal(questionForModel(question), expected);
    const chat = createConversation('chat', options);
    chat.turns.push(question);
    assert.deepEqual(buildChatRequest(chat, []).messages, [{ role: 'user', content: expected }]);
    const agent = createConversation('agent', options);
    agent.turns.push(question);
    assert.equal(buildAgentRequest(agent, question, []).query, expected);
    assert.equal(question.content, 'Why does it return True?', 'the transcript keeps the typed question, no fences');
    assert.equal(questionForModel({ content: 'plain' }), 'plain');
  });

  it('restricts the agent to the chosen volumes, leaving My files out when it was not chosen (D18)', () => {
    const conversation = createConversation('agent', options);
    const question: Turn = { id: 't-000000000001', role: 'user', content: 'lamps?', createdAt: 0 };
    assert.deepEqual(agentSearchScope(conversation, ['lamps', 'reports']), { volumes: ['lamps', 'reports'], searchPersonal: true }, 'no choice: everything, as before');
    assert.equal(buildAgentRequest(conversation, question, ['lamps', 'reports']).context?.search_personal_volume, undefined, 'not sent when it does not restrict');
    conversation.contextVolumes = [{ volume: 'lamps', label: 'lamps', personal: false }];
    const restricted = buildAgentRequest(conversation, question, ['lamps', 'reports']);
    assert.deepEqual(restricted.context?.volumes, ['lamps']);
    assert.equal(restricted.context?.search_personal_volume, false);
    conversation.contextVolumes = [{ volume: '{dev}', label: 'My files', personal: true }];
    const mine = buildAgentRequest(conversation, question, ['lamps', 'reports']);
    assert.deepEqual([mine.context?.volumes, mine.context?.search_personal_volume], [[], undefined], 'My files alone: the personal volume only');
  });

  it("sends the conversation's chosen files with every question, beside the question's own attachments, once each", () => {
    const conversation = createConversation('agent', options);
    conversation.contextFiles = [
      { fileId: 'f1', filename: 'lamps.md', size: 10, volume: 'lamps' },
      { fileId: 'f2', filename: 'bulbs.md', size: 20, volume: '{dev}' },
    ];
    const plain: Turn = { id: 't-000000000001', role: 'user', content: 'lamps?', createdAt: 0 };
    assert.deepEqual(buildAgentRequest(conversation, plain, []).files, [
      { file_id: 'f1', filename: 'lamps.md', size: 10 },
      { file_id: 'f2', filename: 'bulbs.md', size: 20 },
    ]);
    const attached: Turn = {
      ...plain,
      attachments: [
        { fileId: 'f2', filename: 'bulbs.md', size: 20, volume: '{dev}' },
        { fileId: 'f3', filename: 'x.md', size: 1, volume: 'lamps' },
      ],
    };
    assert.deepEqual(
      buildAgentRequest(conversation, attached, []).files?.map((f) => f.file_id),
      ['f2', 'f3', 'f1'],
    );
  });
});
