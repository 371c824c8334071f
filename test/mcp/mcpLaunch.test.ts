// How the bundled server is started for VS Code and configured for other agents: the key
// is never in any of it, the launcher script survives hostile paths, the configuration
// starts a server that answers (run for real through `sh`).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentConfigs, isAtLeast, launcherScript, mcpArgsAndEnv, vscodeLaunch, type McpSettings } from '../../src/nativeChat/core/mcpLaunch';

const SETTINGS: McpSettings = {
  baseUrl: 'https://ksm.example.com',
  userId: 'dev',
  volumes: ['team-docs', 'it handbook'],
  agentId: 'rag-agent',
  agentModel: 'emu-chat',
  caBundle: '',
  timeoutSeconds: 60,
};

describe('mcp launch: VS Code definition and other agents\u2019 configuration', () => {
  it('passes settings as environment and --volume flags, never a key', () => {
    const { args, env } = mcpArgsAndEnv(SETTINGS);
    assert.deepEqual(args, ['mcp', '--volume', 'team-docs', '--volume', 'it handbook']);
    assert.deepEqual(env, { KSM_BASE_URL: 'https://ksm.example.com', KSM_USER_ID: 'dev', KSM_MODEL: 'emu-chat' });
    const launch = vscodeLaunch('/opt/code/code', '/ext/dist/cli.js', SETTINGS);
    assert.equal(launch.command, '/opt/code/code');
    assert.deepEqual(launch.args.slice(0, 2), ['/ext/dist/cli.js', 'mcp']);
    assert.equal(launch.env.ELECTRON_RUN_AS_NODE, '1');
    for (const c of agentConfigs('/home/u/.local/bin/ksm', SETTINGS)) {
      assert.ok(!/KSM_API_KEY=|"KSM_API_KEY"/.test(c.text), `${c.client} carries no key`);
      assert.match(c.where, /KSM_API_KEY is not written here/);
    }
  });

  it('writes JSON for Cursor and Claude Desktop and a quoted command for Claude Code', () => {
    const [claude, cursor] = agentConfigs('/home/u/.local/bin/ksm', SETTINGS);
    assert.equal(
      claude!.text,
      "claude mcp add ksm -e KSM_BASE_URL=https://ksm.example.com -e KSM_USER_ID=dev -e KSM_MODEL=emu-chat -- /home/u/.local/bin/ksm mcp --volume team-docs --volume 'it handbook'\n",
    );
    assert.deepEqual(JSON.parse(cursor!.text), {
      mcpServers: { ksm: { command: '/home/u/.local/bin/ksm', args: ['mcp', '--volume', 'team-docs', '--volume', 'it handbook'], env: mcpArgsAndEnv(SETTINGS).env } },
    });
  });

  it('offers the MCP provider from VS Code 1.101 on (1.100 has only a proposed API that throws)', () => {
    assert.equal(isAtLeast('1.100.3', 1, 101), false);
    assert.equal(isAtLeast('1.101.0', 1, 101), true);
    assert.equal(isAtLeast('1.139.0-insider', 1, 101), true);
    assert.equal(isAtLeast('2.0.0', 1, 101), true);
    assert.equal(isAtLeast('garbage', 1, 101), false);
  });

  it('the launcher runs the bundle under the given runtime, whatever quotes or spaces its paths hold', () => {
    const dir = mkdtempSync(join(tmpdir(), "ksm launcher's "));
    try {
      const bundle = join(dir, "cli $(touch pwned) 'x'.js");
      writeFileSync(bundle, 'process.stdout.write(JSON.stringify(process.argv.slice(2)) + process.env.ELECTRON_RUN_AS_NODE)');
      const script = join(dir, 'ksm');
      writeFileSync(script, launcherScript(process.execPath, bundle));
      const out = execFileSync('sh', [script, 'mcp', '--volume', 'a b'], { cwd: dir, encoding: 'utf8' });
      assert.equal(out, '["mcp","--volume","a b"]1');
      assert.throws(() => execFileSync('ls', [join(dir, 'pwned')], { stdio: 'ignore' }), 'no command substitution ran');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
