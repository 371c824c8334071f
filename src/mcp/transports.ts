// How `ksm mcp` is reached: stdio (the default, what Claude Code, Cursor and VS Code
// launch) or Streamable HTTP on 127.0.0.1 only. Over HTTP every request is checked before
// the SDK sees it: the Host must be this loopback address and port and an Origin, when
// sent, a loopback one (DNS-rebinding protection), and with KSM_MCP_TOKEN set the request
// must carry `Authorization: Bearer <token>`. The HTTP server is stateless: a fresh MCP
// server and transport per request, so no session can be hijacked or leak between clients.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Serves one client over stdin/stdout until stdin closes. */
export async function serveStdio(server: McpServer): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}

export interface HttpOptions {
  port: number;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  log(line: string): void;
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A Host header names this server: a loopback name and our port. */
export function isLocalHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  if (!match) return false;
  return LOOPBACK_NAMES.has(match[1]!) && (match[2] === undefined ? port === 80 : Number(match[2]) === port);
}

/** An Origin header (browsers send one) is a page on this machine. */
export function isLocalOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname.toLowerCase());
  } catch {
    return false;
  }
}

function tokenMatches(header: string | undefined, token: string): boolean {
  // No regex over the rest: `^Bearer\s+(.+)$` re-read a long run of spaces from each of them.
  const value = header?.trim() ?? '';
  if (!/^Bearer\s/i.test(value)) return false;
  const given = Buffer.from(value.slice('Bearer'.length).trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Starts the HTTP server on 127.0.0.1; resolves once it listens, with the bound port. */
export async function serveHttp(makeServer: () => McpServer, options: HttpOptions): Promise<{ server: Server; port: number; url: string }> {
  let port = options.port;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    void handle(req, res).catch((error: unknown) => {
      options.log(`HTTP request failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) refuse(res, 500, 'Internal error.');
      else res.end();
    });
  });
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!isLocalHost(req.headers.host, port)) return refuse(res, 403, 'Forbidden: this server answers only requests addressed to 127.0.0.1 or localhost.');
    const origin = req.headers.origin;
    if (origin !== undefined && !isLocalOrigin(origin)) return refuse(res, 403, 'Forbidden: requests from web pages of other sites are refused.');
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/mcp') return refuse(res, 404, 'Not found: the MCP endpoint is /mcp.');
    if (options.token && !tokenMatches(req.headers.authorization, options.token)) {
      return refuse(res, 401, 'Unauthorized: send Authorization: Bearer <the KSM_MCP_TOKEN the server was started with>.', { 'www-authenticate': 'Bearer' });
    }
    if (req.method !== 'POST') return refuse(res, 405, 'Method not allowed: this server is stateless; POST JSON-RPC messages to /mcp.', { allow: 'POST' });
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address();
  port = typeof address === 'object' && address ? address.port : port;
  return { server: http, port, url: `http://127.0.0.1:${port}/mcp` };
}
