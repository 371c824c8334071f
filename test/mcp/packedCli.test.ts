// Reachable without a clone: `npm pack` makes the CLI package (prepack builds the production
// bundle), it installs into an empty folder with no registry access (everything is bundled;
// the package has no dependencies), and from there `ksm --help` runs and `ksm mcp` answers
// an MCP client over stdio against the emulator.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { useEmulator } from '../api/harness';

const ROOT = join(__dirname, '..', '..');

describe('the packed CLI package installs into an empty folder and runs ksm and ksm mcp', function () {
  this.timeout(180_000);
  const h = useEmulator();
  let work: string;
  let ksm: string;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'ksm-pack-'));
    const packOut = join(work, 'pack');
    mkdirSync(packOut);
    execFileSync('npm', ['pack', '--pack-destination', packOut], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    const [tarball] = readdirSync(packOut).filter((f) => f.endsWith('.tgz'));
    assert.ok(tarball, 'npm pack made a tarball');
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), '{"name":"empty","private":true}');
    // --offline: a package that needed anything from the registry would fail here.
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(packOut, tarball)], { cwd: app, stdio: ['ignore', 'ignore', 'pipe'] });
    ksm = join(app, 'node_modules', '.bin', 'ksm');
    assert.ok(existsSync(ksm));
    assert.ok(!existsSync(join(app, 'node_modules', 'ksm-assistant', 'src')), 'no sources in the package');
    assert.deepEqual(
      readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.')),
      ['ksm-assistant'],
      'no dependency was installed',
    );
  });
  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('ksm --help lists mcp', () => {
    const help = execFileSync(ksm, ['--help'], { cwd: work, encoding: 'utf8' });
    assert.match(help, /^Usage: ksm /);
    assert.match(help, /\bmcp\b.*MCP server/);
  });

  it('ksm mcp answers tools/list and a search over stdio', async () => {
    const client = new Client({ name: 'ksm-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: ksm,
        args: ['mcp'],
        cwd: work,
        env: { PATH: process.env.PATH ?? '', KSM_BASE_URL: h.emulator.url, KSM_API_KEY: h.emulator.apiKey, KSM_USER_ID: h.emulator.userId, KSM_MODEL: 'emu-chat' },
        stderr: 'pipe',
      }),
    );
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['ask', 'fetch', 'list_files', 'search']);
      const listed = (await client.callTool({ name: 'list_files', arguments: {} })) as CallToolResult;
      assert.ok(!listed.isError, JSON.stringify(listed.content));
      const searched = (await client.callTool({ name: 'search', arguments: { query: 'anything' } })) as CallToolResult;
      assert.ok(!searched.isError, JSON.stringify(searched.content));
    } finally {
      await client.close();
    }
  });
});
