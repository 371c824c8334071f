// `ksm search` and `ksm fetch` (built, as child processes) against the emulator over real
// HTTP: a phrase finds the uploaded document, its id fetches the passage in a new process,
// bad ids and an empty query are usage errors (exit 2), a hostile file name is printed
// escaped, the key is never printed.
import { strict as assert } from 'node:assert';
import { useEmulator } from '../api/harness';
import { runKsm } from './runKsm';

const TEAM = 'team-docs';
const PHRASE = 'the heron protocol requires two signatures before a hotfix ships';

const ksm = (args: string[], env: Record<string, string | undefined>) => runKsm(args, env);

describe('ksm search / ksm fetch (built, as a child process) against the emulator', function () {
  this.timeout(60_000);
  const h = useEmulator({ responseWords: 20 });
  let env: Record<string, string>;

  before(async () => {
    env = { KSM_BASE_URL: h.emulator.url, KSM_API_KEY: h.emulator.apiKey, KSM_USER_ID: h.emulator.userId, KSM_MODEL: 'emu-chat' };
    const results = await h.client().uploadFiles({
      volume: TEAM,
      embedding: 'emu-embed',
      doChunking: 1,
      files: [
        { path: h.file('heron.md', `# Release rules\n\nIn short, ${PHRASE}. Nobody merges on Fridays.\n`), filename: 'heron.md' },
        { path: h.file('evil.md', 'the heron protocol \x1b[2J is also kept in evil notes\n'), filename: 'ev\x1b[31mil\nforged.md' },
      ],
    });
    assert.ok(
      results.every((r) => r.ok),
      JSON.stringify(results),
    );
    await h.emulator.waitForIdle();
    await ksm(['--version'], {}); // builds dist/cli.js once if it is stale
  });

  it('finds the uploaded document by a phrase, and a new process fetches the passage by the returned id', async () => {
    const found = await ksm(['search', '--volume', TEAM, '--json', 'heron', 'protocol', 'signatures', 'hotfix'], env);
    assert.equal(found.code, 0, found.stderr);
    const { results } = JSON.parse(found.stdout) as { results: Array<{ id: string; filename: string; volume: string; text: string }> };
    const hit = results.find((r) => r.filename === 'heron.md');
    assert.ok(hit, found.stdout);
    assert.equal(hit.volume, TEAM);
    assert.match(hit.id, /^ksm:\/\/team-docs\/[\w-]+#\d+$/);
    assert.match(hit.text, /heron protocol/);

    const fetched = await ksm(['fetch', hit.id, '--json'], env);
    assert.equal(fetched.code, 0, fetched.stderr);
    const doc = JSON.parse(fetched.stdout) as { id: string; filename: string; text: string; file: { status: string }; fileId: string };
    assert.equal(doc.id, hit.id);
    assert.equal(doc.filename, 'heron.md');
    assert.match(doc.text, new RegExp(PHRASE));
    assert.equal(doc.file.status, 'done');

    const human = await ksm(['fetch', hit.id], env);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^heron\.md \(team-docs\), passage \d+, done\nid: ksm:\/\/team-docs\//);
    assert.match(human.stdout, new RegExp(PHRASE));

    // The file id (no #n) gives the file's passages.
    const whole = await ksm(['fetch', `ksm://${TEAM}/${doc.fileId}`, '--json'], env);
    assert.equal(whole.code, 0, whole.stderr);
    assert.match((JSON.parse(whole.stdout) as { text: string }).text, new RegExp(PHRASE));
  });

  it('prints hostile file names and passage text escaped (no forged lines, no terminal escapes), and never the key', async () => {
    const run = await ksm(['search', '--volume', TEAM, 'heron protocol evil notes'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /\x1b/);
    assert.match(run.stdout, /ev\\x1b\[31mil\\nforged\.md \(team-docs\)/);
    assert.match(run.stdout, /^ksm:\/\/team-docs\/\S+\theron\.md \(team-docs\)/m);
    assert.ok(!run.stdout.includes(h.emulator.apiKey) && !run.stderr.includes(h.emulator.apiKey));
  });

  it('an empty query, a bad id and a volume outside the scope are usage errors (exit 2) with a clear line', async () => {
    const empty = await ksm(['search', '--volume', TEAM, '   '], env);
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /'query' is required/);
    const noScope = await ksm(['search', 'heron'], { ...env, KSM_USER_ID: '' });
    assert.equal(noScope.code, 2);
    assert.match(noScope.stderr, /pass --volume NAME/);
    const badVolume = await ksm(['search', '--volume', 'bad/name', 'heron'], env);
    assert.equal(badVolume.code, 2);
    const bad = await ksm(['fetch', 'nonsense\x1b[2J'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /'nonsense\\x1b\[2J' is not a KSM id/);
    const someoneElse = await ksm(['fetch', 'ksm://%7Bsomeone-else%7D/abc#0'], env);
    assert.equal(someoneElse.code, 2, someoneElse.stderr);
    // Named in the CLI's own terms: no 'My files' (the tools' name, not a --volume value).
    assert.match(someoneElse.stderr, /in the personal volume \{someone-else\}, not yours \(\{[^}]+\}, from KSM_USER_ID\)/);
    assert.doesNotMatch(someoneElse.stderr, /My files/);
    const noUserId = await ksm(['fetch', 'ksm://%7Bsomeone-else%7D/abc#0'], { ...env, KSM_USER_ID: '' });
    assert.equal(noUserId.code, 2, noUserId.stderr);
    assert.match(noUserId.stderr, /set KSM_USER_ID to your user id/);
    assert.doesNotMatch(noUserId.stderr, /--volume/);
    const noModel = await ksm(['search', '--volume', TEAM, 'heron'], { ...env, KSM_MODEL: '' });
    assert.equal(noModel.code, 3);
    assert.match(noModel.stderr, /KSM_MODEL/);
  });

  it('a well-formed id that names no file exits 1 with the reason; a wrong key exits 3 without printing it', async () => {
    const gone = await ksm(['fetch', `ksm://${TEAM}/00000000-0000-0000-0000-000000000000#0`], env);
    assert.equal(gone.code, 1, gone.stderr);
    assert.match(gone.stdout, /No file with id '00000000-0000-0000-0000-000000000000' is in team-docs/);
    const wrongKey = 'sk-wrong-0123456789abcdef';
    const refused = await ksm(['search', '--volume', TEAM, 'heron'], { ...env, KSM_API_KEY: wrongKey });
    assert.equal(refused.code, 3, refused.stderr);
    assert.ok(!refused.stderr.includes(wrongKey) && !refused.stdout.includes(wrongKey));
  });
});
