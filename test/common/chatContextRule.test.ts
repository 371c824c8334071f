// The one rule for a local file's text sent as chat context (privateFiles.ts:
// chatContextDecision, chatContextNote, privateKeysRemoved): what `@ksm`'s #file and implicit
// references, the panel's Ask About File / Selection chips and the KSM model in VS Code's
// picker may send, tried as a careless click or a hostile workspace would.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatContextDecision, chatContextNote, privateKeyContentReason, privateKeysRemoved, type ChatContextDecision, type PrivateFileRules } from '../../src/common/core/privateFiles';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----\n';

describe('chat context: the one rule for a local file sent with a question', () => {
  let base: string;
  let root: string;
  let home: string;
  let rules: PrivateFileRules;
  const decide = (path: string | undefined, text: string, implicit: boolean, r = rules) => chatContextDecision({ path, text, implicit }, r);
  const leftOut = async (path: string | undefined, text: string, implicit: boolean, why: RegExp, attachToSend = false): Promise<Extract<ChatContextDecision, { send: false }>> => {
    const decision = await decide(path, text, implicit);
    assert.equal(decision.send, false, `${path} must be left out`);
    if (decision.send) throw new Error('unreachable');
    assert.match(decision.reason, why);
    assert.equal(decision.attachToSend, attachToSend, `${path}: attachToSend`);
    return decision;
  };

  before(() => {
    base = mkdtempSync(join(tmpdir(), 'ksm-chat-context-'));
    root = join(base, 'workspace');
    home = join(base, 'home');
    mkdirSync(join(root, 'src'), { recursive: true });
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(root, 'src', 'app.ts'), 'export const x = 1;\n');
    writeFileSync(join(root, '.env'), 'TOKEN=s3cret\n');
    writeFileSync(join(root, '.git', 'config'), '[credential]\n');
    writeFileSync(join(root, 'server.pem'), 'x\n');
    writeFileSync(join(root, '.gitignore'), 'local.md\n');
    writeFileSync(join(root, 'local.md'), 'mine\n');
    writeFileSync(join(root, 'draft.tmp.md'), 'draft\n');
    writeFileSync(join(root, 'secrets.yaml'), 'x: 1\n');
    writeFileSync(join(home, '.ssh', 'id_rsa'), KEY);
    writeFileSync(join(home, 'notes.md'), 'ordinary\n');
    symlinkSync(join(home, '.ssh', 'id_rsa'), join(root, 'README-link.md'));
    rules = { workspaceRoots: [root], filesExclude: ['**/*.tmp.md'], uploadExclude: ['secrets.yaml'] };
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('sends an ordinary file, attached or implicit, and an ordinary file outside the workspace the user attached', async () => {
    assert.deepEqual(await decide(join(root, 'src', 'app.ts'), 'export const x = 1;\n', true), { send: true });
    assert.deepEqual(await decide(join(root, 'src', 'app.ts'), 'export const x = 1;\n', false), { send: true });
    assert.deepEqual(await decide(join(home, 'notes.md'), 'ordinary\n', false), { send: true });
    assert.deepEqual(await decide(undefined, 'an untitled editor', true), { send: true });
  });

  it('never sends a credential or a file in a private folder, attached or not, and names it workspace-relative', async () => {
    for (const implicit of [true, false]) {
      const env = await leftOut(join(root, '.env'), 'TOKEN=s3cret\n', implicit, /credential: '\.env\*' files hold secrets/);
      assert.equal(env.display, '.env');
      await leftOut(join(root, '.git', 'config'), '[credential]\n', implicit, /inside '\.git\/'/);
      await leftOut(join(root, 'server.pem'), 'x\n', implicit, /key and certificate stores/);
      await leftOut(join(home, '.ssh', 'id_rsa'), 'not sniffed', implicit, /inside '\.ssh\/'/);
      await leftOut(join(root, 'secrets.yaml'), 'x: 1\n', implicit, /excluded by ksm\.upload\.exclude \('secrets\.yaml'\)/);
    }
  });

  it('judges a symlink by where it leads: README-link.md to ~/.ssh/id_rsa is left out', async () => {
    const decision = await leftOut(join(root, 'README-link.md'), 'whatever the editor shows', false, /\.ssh\//);
    assert.equal(decision.display, 'README-link.md', 'named as the user sees it');
  });

  it('never sends a private key by content: a selection, an unsaved editor, a JSON-embedded key, whatever the name', async () => {
    await leftOut(join(root, 'src', 'app.ts'), `const a = 1;\n${KEY}`, false, /contains a private key/);
    await leftOut(undefined, KEY, false, /contains a private key/);
    await leftOut(join(root, 'src', 'app.ts'), `${'x\n'.repeat(40_000)}${KEY}`, false, /contains a private key/, false);
    const serviceAccount = JSON.stringify({ type: 'service_account', private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n' });
    await leftOut(join(root, 'src', 'sa.json'), serviceAccount, false, /contains a private key/);
    assert.deepEqual(
      await decide(join(root, 'src', 'app.ts'), 'A key file starts with -----BEGIN RSA PRIVATE KEY----- and ends with its END line.', false),
      { send: true },
      'prose naming the header is no key',
    );
  });

  it('leaves out an implicit reference to a gitignored or files.exclude file, which the user may still attach explicitly', async () => {
    await leftOut(join(root, 'local.md'), 'mine\n', true, /^is ignored by line 1 of \.gitignore \(/, true);
    await leftOut(join(root, 'draft.tmp.md'), 'draft\n', true, /excluded by files\.exclude \('\*\*\/\*\.tmp\.md'\)/, true);
    assert.deepEqual(await decide(join(root, 'local.md'), 'mine\n', false), { send: true });
    assert.deepEqual(await decide(join(root, 'draft.tmp.md'), 'draft\n', false), { send: true });
  });

  it('fails closed on a glob too costly to match; no workspace still applies the name, folder and content rules', async () => {
    const costly: PrivateFileRules = { ...rules, uploadExclude: ['**/a/**/b/**/c'] };
    const decision = await decide(join(root, 'src', 'app.ts'), 'x', false, costly);
    assert.equal(decision.send, false);
    assert.match(decision.send ? '' : decision.reason, /too complex to match safely/);
    const none: PrivateFileRules = { workspaceRoots: [], filesExclude: [], uploadExclude: [] };
    assert.equal((await decide(join(root, '.env'), 'x', true, none)).send, false);
    assert.equal((await decide(join(home, 'notes.md'), KEY, false, none)).send, false);
    assert.deepEqual(await decide(join(home, 'notes.md'), 'ordinary', true, none), { send: true });
  });

  it('says in one escaped line which file was left out, why, and how to send it when that is possible', async () => {
    const env = await leftOut(join(root, '.env'), 'x', true, /credential/);
    assert.equal(chatContextNote('.env', env), "Left out: '.env' looks like a credential: '.env*' files hold secrets. Private files are never sent as chat context.");
    const ignored = await leftOut(join(root, 'local.md'), 'x', true, /gitignore/, true);
    assert.match(chatContextNote('local.md', ignored), /^Left out: 'local\.md' is ignored by line 1 of \.gitignore .*VS Code attached it by itself; attach it with #file to send it\.$/);
    const hostile = chatContextNote('x', { send: false, reason: 'r', attachToSend: false, display: 'a\n# Heading\u202e.md' });
    assert.equal(hostile.split('\n').length, 1, hostile);
    assert.ok(!hostile.includes('\u202e'), 'a bidi control is escaped');
  });

  it('cuts every private key out of text it cannot trace to a file, keeping the rest and prose that names the header', () => {
    const { text, removed } = privateKeysRemoved(`before\n${KEY}between\n-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD9\nafter`);
    assert.equal(removed, 2);
    assert.ok(!/b3BlbnNz|MIIBOg/.test(text), text);
    assert.match(text, /^before\n\[a private key was left out: private keys are never sent\]\nbetween\n\[a private key was left out/);
    const prose = 'It starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY----- lines.';
    assert.deepEqual(privateKeysRemoved(prose), { text: prose, removed: 0 });
    const both = privateKeysRemoved(`${prose}\n${KEY}`);
    assert.equal(both.removed, 1, 'a key after prose naming the header is still cut');
    assert.ok(both.text.startsWith(prose) && !both.text.includes('b3BlbnNz'), both.text);
    const embedded = privateKeysRemoved('{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n"}');
    assert.equal(embedded.removed, 1);
    assert.ok(!embedded.text.includes('MIIEvQ'), embedded.text);
    assert.deepEqual(privateKeysRemoved('no key here'), { text: 'no key here', removed: 0 });
  });

  it('reads a text of a million blank lines in one pass (the check once took time growing with its square: hours here)', async () => {
    // A pasted log or a file of empty lines: with the quadratic check this test never ends.
    for (const blank of ['\n', ' \n', '\r\n', '\u2028']) {
      const text = blank.repeat(1_000_000);
      assert.deepEqual(privateKeysRemoved(text), { text, removed: 0 });
      assert.deepEqual(await decide(join(root, 'src', 'app.ts'), text, false), { send: true });
      assert.equal(privateKeyContentReason(Buffer.from(text)), undefined);
    }
    // An indented key after many blank lines is still found.
    await leftOut(join(root, 'src', 'app.ts'), `${'\n'.repeat(100_000)}  \t${KEY}`, false, /contains a private key/);
  });
});
