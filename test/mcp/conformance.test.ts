// The official MCP conformance suite (@modelcontextprotocol/conformance) against
// `ksm mcp --http`: the scenarios that suit any server whatever its tools. The suite needs
// Node 22 or later; scripts/setup-node.sh installs Node 24 from the npm registry once per
// machine (the native e2e profile uses the same one). A control run against a server
// without the Host check proves the suite's failure reaches this test.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { CLI_NODE } from '../cli/runKsm';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { useEmulator } from '../api/harness';

const ROOT = join(__dirname, '..', '..');
const SUITE = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

function runScenario(node: string, url: string, scenario: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(node, [SUITE, 'server', '--url', url, '--scenario', scenario], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('ksm mcp --http passes the official MCP conformance suite', function () {
  this.timeout(300_000);
  const h = useEmulator();
  let node: string;
  let child: ChildProcess;
  let url: string;

  before(async () => {
    node = execFileSync('bash', [join(ROOT, 'scripts', 'setup-node.sh'), '24'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
      .trim()
      .split('\n')
      .pop()!;
    child = spawn(CLI_NODE, [join(ROOT, 'bin', 'ksm.js'), 'mcp', '--http', '--port', '0', '--volume', 'team-docs'], {
      env: { PATH: process.env.PATH ?? '', KSM_BASE_URL: h.emulator.url, KSM_API_KEY: h.emulator.apiKey, KSM_USER_ID: h.emulator.userId, KSM_MODEL: 'emu-chat' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`ksm mcp exited ${code}: ${stderr}`)));
    });
  });
  after(() => {
    child?.kill('SIGTERM');
  });

  for (const scenario of SCENARIOS) {
    it(`scenario ${scenario}`, async () => {
      const { code, output } = await runScenario(node, url, scenario);
      assert.equal(code, 0, output);
      assert.match(output, /Passed: (\d+)\/\1, 0 failed/);
    });
  }

  it('control: the suite fails dns-rebinding-protection for a server without the Host check, and this test sees it', async () => {
    const open: Server = createServer((req, res) => {
      const server = new McpServer({ name: 'open', version: '0' });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    await new Promise<void>((r) => open.listen(0, '127.0.0.1', r));
    try {
      const { code, output } = await runScenario(node, `http://127.0.0.1:${(open.address() as { port: number }).port}/mcp`, 'dns-rebinding-protection');
      assert.notEqual(code, 0, output);
    } finally {
      open.closeAllConnections();
      await new Promise<void>((r) => open.close(() => r()));
    }
  });
});
