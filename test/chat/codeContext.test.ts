// What "Ask About Selection/File" attach and what the model then reads: a chip's code by
// size (attach, ask first over 50 KB, refuse over the documented limit), the limit on all the
// code of one question, and the request: the code as fenced blocks before the question,
// while the turn keeps only what the user typed.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { askAnyway, codeContextProblem, codeLabel, LARGE_FILE_CHARS, planAskAboutCode, planAskAboutFile, planAskAboutSelection } from '../../src/chat/core/askAboutFile';
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

describe('chat: Ask About File / Selection leave private files out (the chat-context rule)', () => {
  const KEY = '-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX\n-----END RSA PRIVATE KEY-----\n';
  let base: string;
  let root: string;
  const rules = () => ({ workspaceRoots: [root], filesExclude: ['**/*.gen.ts'], uploadExclude: ['config/prod.yaml'] });
  before(() => {
    base = mkdtempSync(join(tmpdir(), 'ksm-ask-about-'));
    root = join(base, 'workspace');
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(root, 'config'), { recursive: true });
    mkdirSync(join(base, '.aws'), { recursive: true });
    writeFileSync(join(root, 'release.py'), 'def ship():\n    return True\n');
    writeFileSync(join(root, '.env.local'), 'TOKEN=s3cret\n');
    writeFileSync(join(root, '.git', 'config'), '[credential]\n');
    writeFileSync(join(root, 'config', 'prod.yaml'), 'db: x\n');
    writeFileSync(join(root, '.gitignore'), 'local.py\n');
    writeFileSync(join(root, 'local.py'), 'x = 1\n');
    writeFileSync(join(root, 'api.gen.ts'), 'x\n');
    writeFileSync(join(base, '.aws', 'credentials'), '[default]\n');
    symlinkSync(join(base, '.aws', 'credentials'), join(root, 'notes.md'));
  });
  after(() => rmSync(base, { recursive: true, force: true }));
  const refused = async (file: string | undefined, text: string, why: RegExp, lines?: { start: number; end: number }) => {
    const plan = await planAskAboutCode({ path: file && join(root, file), filename: file?.split('/').pop() ?? 'Untitled-1', languageId: 'plaintext', text, lines }, rules());
    assert.equal(plan.kind, 'refuse', `${file} is not attached`);
    const message = plan.kind === 'refuse' ? plan.message : '';
    assert.match(message, why);
    assert.equal(message.split('\n').length, 1, 'one line');
    return message;
  };

  it('attaches an ordinary file, and a gitignored or files.exclude one the user asked about explicitly', async () => {
    assert.deepEqual(await planAskAboutCode({ path: join(root, 'release.py'), filename: 'release.py', languageId: 'python', text: 'def ship():\n    return True\n' }, rules()), {
      kind: 'attach',
      code: { filename: 'release.py', languageId: 'python', text: 'def ship():\n    return True\n' },
    });
    assert.equal((await planAskAboutCode({ path: join(root, 'local.py'), filename: 'local.py', languageId: 'python', text: 'x = 1\n' }, rules())).kind, 'attach');
    assert.equal((await planAskAboutCode({ path: join(root, 'api.gen.ts'), filename: 'api.gen.ts', languageId: 'typescript', text: 'x\n', lines: { start: 1, end: 1 } }, rules())).kind, 'attach');
  });

  it('refuses a credential, a file in .git/, a ksm.upload.exclude match and a symlink to ~/.aws/credentials, naming each and why', async () => {
    assert.equal(
      await refused('.env.local', 'TOKEN=s3cret\n', /credential/),
      "Left out: '.env.local' looks like a credential: '.env*' files hold secrets. Private files are never sent as chat context.",
    );
    await refused('.git/config', '[credential]\n', /^Left out: '\.git\/config' inside '\.git\/'/);
    await refused('.env.local', 'TOKEN', /credential/, { start: 1, end: 1 });
    await refused('config/prod.yaml', 'db: x\n', /^Left out: 'config\/prod\.yaml' is excluded by ksm\.upload\.exclude/);
    await refused('notes.md', '[default]\n', /^Left out: 'notes\.md' inside '\.aws\/'/);
  });

  it('never sends a private key pasted into the question, or kept in a chip of a conversation stored before the rule', () => {
    const sent = questionForModel({ content: `Is this right?\n${KEY}`, code: [{ id: 'x-000000000001', filename: 'old.txt', languageId: '', text: KEY }] });
    assert.ok(!sent.includes('MIIBOg'), sent);
    assert.equal(sent.match(/\[a private key was left out: private keys are never sent\]/g)?.length, 2, sent);
    assert.match(sent, /Is this right\?/);
  });

  it('leaves out a chip named like a private file, kept in a conversation stored before the rule, with its one line', () => {
    const chip = (filename: string, text: string, lines?: { start: number; end: number }) => ({ id: 'x-000000000001', filename, languageId: '', text, ...(lines ? { lines } : {}) });
    const sent = questionForModel({
      content: 'What are these?',
      code: [chip('.env', 'API_TOKEN=s3cret\n'), chip('id_rsa', 'not armoured\n', { start: 1, end: 2 }), chip('server.pem', 'pem body\n'), chip('notes.md', 'Garden party.\n')],
    });
    for (const secret of ['s3cret', 'not armoured', 'pem body']) assert.ok(!sent.includes(secret), `${secret} must not be sent: ${sent}`);
    assert.equal(
      sent,
      "Left out: '.env' looks like a credential: '.env*' files hold secrets. Private files are never sent as chat context.\n\n" +
        "Left out: 'id_rsa' looks like a credential: SSH keys ('id_rsa*', 'id_ed25519*', 'id_ecdsa*', 'id_dsa*'). Private files are never sent as chat context.\n\n" +
        "Left out: 'server.pem' looks like a credential: key and certificate stores (*.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, *.ppk) hold private keys. Private files are never sent as chat context.\n\n" +
        '`notes.md`:\n\n```\nGarden party.\n```\n\nWhat are these?',
    );
  });

  it('refuses a private key by content: a selection of an ordinary file, an untitled editor', async () => {
    await refused('release.py', `x\n${KEY}`, /^Left out: 'release\.py' contains a private key/, { start: 1, end: 4 });
    await refused(undefined, KEY, /^Left out: 'Untitled-1' contains a private key/);
  });
});
