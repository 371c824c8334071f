// What the README and `ksm --help` promise about the command line, checked against the built
// `ksm` (a child process, real HTTP to the emulator): every flag they name exists on that
// command, every variable `ksm --help` lists is in the README, and what `ksm` says about a
// bad value names the variable or flag a terminal user sets, never an editor setting.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freshVolume, listedFiles, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import { runKsm, startKsmFixture } from './runKsm';

const COMMANDS = ['sync', 'upload', 'ls', 'rm', 'ask', 'search', 'fetch', 'mcp'];
const readme = readFileSync('README.md', 'utf8');

/** The README's text between two headings (the first line that starts with each). */
function section(from: RegExp, to: RegExp): string {
  const start = readme.search(from);
  assert.ok(start >= 0, `README has ${from}`);
  const rest = readme.slice(start);
  const end = rest.slice(1).search(to);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

/** `--flag` names in a text (not `--` alone, not `-e`). */
const flagsIn = (text: string) => [...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]);

/** The options a help text lists. */
const optionsOf = (help: string) => new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]));

describe("ksm's documented flags and variables exist (README, --help)", function () {
  this.timeout(60_000);
  const helps = new Map<string, string>();
  before(async () => {
    for (const command of ['', ...COMMANDS]) {
      const run = await runKsm([...(command ? [command] : []), '--help'], {});
      assert.equal(run.code, 0, `ksm ${command} --help: ${run.stderr}`);
      helps.set(command, run.stdout);
    }
  });

  it('every command has --help (search, fetch and mcp included)', () => {
    for (const command of COMMANDS) assert.match(helps.get(command)!, new RegExp(`^Usage: ksm ${command} `, 'm'));
  });

  it("every flag a `ksm <command> …` example or inline command names (README, --help's examples) is one of that command's options", () => {
    const cli = section(/^### Command line/m, /^## Chat$/m) + section(/^## KSM volumes for every agent/m, /^## Settings$/m);
    const examples = [
      ...[...cli.matchAll(/`([^`\n]*\bksm [a-z]+[^`\n]*)`/g)].map((m) => m[1]),
      ...cli.split('\n').filter((line) => /\bksm [a-z]+ /.test(line) && !line.includes('`')),
      ...[...helps.values()].flatMap((help) => help.split('\n').filter((line) => /^ {2}(KSM_\w+=\S+ )?(claude .* -- )?ksm [a-z]+ /.test(line))),
    ];
    let checked = 0;
    for (const example of examples) {
      for (const use of example.matchAll(/\bksm ([a-z]+)((?:(?!\||\bksm ).)*)/g)) {
        const [, command, rest] = use;
        if (!COMMANDS.includes(command)) continue;
        const options = optionsOf(helps.get(command)!);
        for (const flag of flagsIn(rest.replace(/#.*$/, ''))) {
          assert.ok(options.has(flag), `"${example.trim()}": ksm ${command} has no ${flag}`);
          checked++;
        }
      }
    }
    assert.ok(checked >= 20, `only ${checked} flags found in the examples`);
  });

  it("every flag the README's command-line and MCP sections name is an option of some ksm command", () => {
    const all = new Set(COMMANDS.flatMap((command) => [...optionsOf(helps.get(command)!)]));
    const text = section(/^### Command line/m, /^## Chat$/m) + section(/^## KSM volumes for every agent/m, /^## Settings$/m);
    for (const flag of flagsIn(text)) assert.ok(all.has(flag), `README names ${flag}, which no ksm command has`);
  });

  it('every variable of `ksm --help` is in the README, and every KSM_ variable the README names is in `ksm --help`', () => {
    const listed = [...helps.get('')!.matchAll(/^ {2}(KSM_[A-Z_]+) /gm)].map((m) => m[1]);
    assert.ok(listed.length >= 9, listed.join(', '));
    for (const name of listed) assert.ok(readme.includes(name), `ksm --help lists ${name}; the README never names it`);
    for (const [name] of readme.matchAll(/\bKSM_[A-Z_]+\b/g)) assert.ok(listed.includes(name), `the README names ${name}; ksm --help does not list it`);
  });

  it('the README runs `ksm` in its examples, and `npx ksm` only in a clone: elsewhere npx fetches a registry package of that name (in CI without asking), with KSM_API_KEY in its environment', () => {
    const paragraphs = readme.split(/\n\s*\n/);
    for (const paragraph of paragraphs.filter((p) => /npx ksm/.test(p))) assert.match(paragraph, /From a clone/, paragraph);
  });

  it("ksm mcp --help's Claude Code example runs `ksm` (not `npx ksm`, which outside a clone fetches a registry package) with the model search needs", () => {
    const example = helps
      .get('mcp')!
      .split('\n')
      .find((line) => line.includes('claude mcp add'));
    assert.ok(example);
    assert.doesNotMatch(example, /npx/);
    assert.match(example, /-e KSM_MODEL=/);
  });
});

describe("ksm's messages name what a terminal user sets (variables, flags), not the editor's settings, and say a thing once", function () {
  this.timeout(60_000);
  let fx: EmulatorFixture;
  let env: Record<string, string>;
  before(async () => ({ fx, env } = await startKsmFixture({ KSM_EMBEDDING_MODEL: 'emu-embed' })));
  after(async () => fx.close());

  it('a KSM_CA_BUNDLE that is missing or holds no certificate exits 3 naming KSM_CA_BUNDLE (it said "setting ksm.network.caBundle … clear the setting")', async () => {
    const notPem = join(fx.workDir, 'not-a-bundle.pem');
    await writeFile(notPem, 'hello\n');
    for (const bundle of [join(fx.workDir, 'no-such-bundle.pem'), notPem]) {
      const run = await runKsm(['ls', freshVolume('cli-ca')], { ...env, KSM_CA_BUNDLE: bundle });
      assert.equal(run.code, 3, run.stderr);
      assert.match(run.stderr, /\(KSM_CA_BUNDLE\)/);
      assert.doesNotMatch(run.stderr, /ksm\.network\.caBundle|the setting/);
    }
  });

  it('a KSM_TIMEOUT_SECONDS that is not a number of seconds exits 3 naming it (it ran with 60 s, silently)', async () => {
    for (const value of ['2m', '0', '-5']) {
      const run = await runKsm(['ls', freshVolume('cli-timeout')], { ...env, KSM_TIMEOUT_SECONDS: value });
      assert.equal(run.code, 3, `${value}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`KSM_TIMEOUT_SECONDS is not usable: '${value}'`));
    }
    const fine = await runKsm(['ls', freshVolume('cli-timeout')], { ...env, KSM_TIMEOUT_SECONDS: '0.5' });
    assert.equal(fine.code, 0, fine.stderr);
  });

  it('a plain http:// KSM_BASE_URL off this machine is warned about on stderr (the key travels in clear), as the editor warns in its log; https and the local emulator are not', async () => {
    const remote = await runKsm(['ls', 'v'], { KSM_BASE_URL: 'http://ksm.invalid', KSM_API_KEY: 'ksm-secret-key-123' });
    assert.match(remote.stderr, /^ksm: warning: KSM_BASE_URL is plain http:\/\/ to another machine, so the API key travels unencrypted\. Use https:\/\/\.$/m);
    assert.doesNotMatch(remote.stderr, /ksm-secret-key-123/);
    const secure = await runKsm(['ls', 'v'], { KSM_BASE_URL: 'https://ksm.invalid', KSM_API_KEY: 'ksm-secret-key-123' });
    assert.doesNotMatch(secure.stderr, /warning/);
    const local = await runKsm(['ls', freshVolume('cli-http')], env);
    assert.equal(local.code, 0, local.stderr);
    assert.equal(local.stderr, '');
  });

  it('a refused connection through a proxy (HTTP_PROXY) says the proxy may have refused, naming the variable, never its value; without one it does not', async () => {
    const viaProxy = await runKsm(['ls', 'v'], { ...env, HTTP_PROXY: 'http://user:proxy-pass@127.0.0.1:1' });
    assert.equal(viaProxy.code, 5, viaProxy.stderr);
    assert.match(viaProxy.stderr, /HTTP_PROXY is set: if the proxy refused, check it, or list the service's host in NO_PROXY\./);
    assert.doesNotMatch(viaProxy.stderr, /proxy-pass/);
    const direct = await runKsm(['ls', 'v'], { ...env, KSM_BASE_URL: 'http://127.0.0.1:1' });
    assert.equal(direct.code, 5, direct.stderr);
    assert.doesNotMatch(direct.stderr, /PROXY/);
  });

  it("a glob over the matcher's budget in --exclude, --exclude-from or --include exits 2 naming the flag (it exited 3 blaming files.exclude or ksm.upload.exclude; --include went unchecked)", async () => {
    const folder = join(fx.workDir, 'costly-globs');
    await writeTree(folder, { 'a.md': 'a' });
    const list = join(fx.workDir, 'costly-excludes.txt');
    await writeFile(list, '# one per line\n**/a/**/b/**/c/**\n');
    const volume = freshVolume('cli-globs');
    const runs: Array<[string, string[]]> = [
      ['--exclude', ['sync', folder, volume, '--dry-run', '--exclude', '**/*a*a*a*a*b']],
      ['--exclude-from', ['sync', folder, volume, '--dry-run', '--exclude-from', list]],
      ['--include', ['upload', volume, folder, '--include', '**/*a*a*a*a*b']],
    ];
    for (const [flag, args] of runs) {
      const run = await runKsm(args, env);
      assert.equal(run.code, 2, `${flag}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`^ksm: ${flag} '[^']+' cannot be used: `, 'm'));
      assert.doesNotMatch(run.stderr, /files\.exclude|ksm\.upload\.exclude/);
    }
    assert.deepEqual(await listedFiles(fx, volume), [], 'nothing was uploaded');
  });

  it('ksm ask: the agent\'s "continue with" line gives a command that continues the thread, and --thread or --volume without the agent exit 2 (a chat model was asked instead, the thread dropped)', async () => {
    const withModel = { ...env, KSM_MODEL: 'emu-chat' };
    const first = await runKsm(['ask', '--agent', 'what', 'is', 'here'], withModel);
    assert.equal(first.code, 0, first.stderr);
    const hint = /continue with (.+)\)$/m.exec(first.stderr)?.[1];
    assert.ok(hint, first.stderr);
    const args = hint.split(' ');
    assert.deepEqual(args.slice(0, 2), ['--agent', '--thread']);
    const next = await runKsm(['ask', ...args, '--json', 'and', 'then'], withModel);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(JSON.parse(next.stdout).threadId, args[2], 'the same agent thread');
    for (const agentOnly of [
      ['--thread', args[2]!],
      ['--volume', 'team-docs'],
    ]) {
      const chat = await runKsm(['ask', ...agentOnly, 'and', 'then'], withModel);
      assert.equal(chat.code, 2, chat.stderr);
      assert.match(chat.stderr, new RegExp(`^ksm: ${agentOnly[0]}: for the agent only; add --agent`, 'm'));
    }
  });

  it('a KSM_BASE_URL that answers 404 without naming the volume (a web server, not the API) exits 3 saying so for ls and sync; a volume the service has never written (D6) is still empty', async () => {
    const web = createServer((_request, response) => response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
    await new Promise<void>((listening) => web.listen(0, '127.0.0.1', listening));
    try {
      const wrong = { ...env, KSM_BASE_URL: `http://127.0.0.1:${(web.address() as AddressInfo).port}` };
      const folder = join(fx.workDir, 'wrong-address');
      await writeTree(folder, { 'a.md': 'a' });
      for (const args of [
        ['ls', 'team-docs'],
        ['sync', folder, 'team-docs', '--dry-run'],
      ]) {
        const run = await runKsm(args, wrong);
        assert.equal(run.code, 3, `${args[0]}: ${run.stdout}${run.stderr}`);
        assert.match(run.stderr, /not as the KSM API .*check KSM_BASE_URL/);
      }
    } finally {
      web.close();
    }
    const unwritten = await runKsm(['ls', freshVolume('cli-unwritten'), '--json'], env);
    assert.equal(unwritten.code, 0, unwritten.stderr);
    assert.deepEqual(JSON.parse(unwritten.stdout).files, []);
  });

  it('ksm mcp --port without --http exits 2 naming --http (it served stdio and ignored the port)', async () => {
    const run = await runKsm(['mcp', '--port', '8799'], env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--port: only with --http/);
  });

  it('ksm ask without a model exits 3 naming --model and KSM_MODEL, not --agent (which then exits 3 for the same reason)', async () => {
    const chat = await runKsm(['ask', 'why'], env);
    assert.equal(chat.code, 3, chat.stderr);
    assert.match(chat.stderr, /--model <id> or set KSM_MODEL/);
    assert.doesNotMatch(chat.stderr, /--agent/);
    const agent = await runKsm(['ask', '--agent', 'why'], env);
    assert.equal(agent.code, 3, agent.stderr);
  });

  it('a name already in the volume is said once as skipped, with its reason (it said "skipped …: skipped: …")', async () => {
    const folder = join(fx.workDir, 'twice');
    await writeTree(folder, { 'a.md': 'a' });
    const volume = freshVolume('cli-twice');
    assert.equal((await runKsm(['upload', volume, join(folder, 'a.md')], env)).code, 0);
    const again = await runKsm(['upload', volume, join(folder, 'a.md')], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^skipped \S*a\.md: "a\.md" already exists in the volume$/m);
  });

  it('a file over --max-file-size-mb is skipped naming --max-file-size-mb (upload and sync), not ksm.upload.maxFileSizeMB', async () => {
    const folder = join(fx.workDir, 'size-limit');
    await writeTree(folder, { 'big.md': 'a'.repeat(1024 * 1024 + 1), 'small.md': 'small' });
    const volume = freshVolume('cli-size');
    const upload = await runKsm(['upload', volume, folder, '--max-file-size-mb', '1'], env);
    assert.equal(upload.code, 0, upload.stderr);
    const sync = await runKsm(['sync', folder, volume, '--max-file-size-mb', '1', '--dry-run'], env);
    assert.equal(sync.code, 0, sync.stderr);
    for (const out of [upload.stdout, sync.stdout]) {
      assert.match(out, /big\.md.*larger than the 1\.0 MB limit \(--max-file-size-mb\)/);
      assert.doesNotMatch(out, /maxFileSizeMB/);
    }
  });
});
