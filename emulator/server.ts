// The emulator's importable entry point: startEmulator() gives each test suite (and the
// CLI) an isolated server on loopback with its own data folder.
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ThreadStore, type Thread } from './agentThreads';
import type { EmulatorStats, RequestContext, Shared, UpstreamConfig } from './context';
import { FaultBook, type FaultRule } from './faults';
import { parseDialect, sendDialectError, type Dialect } from './dialects';
import { HttpError } from './httpErrors';
import { Processor } from './pipeline';
import { routeRequest } from './router';
import { Store } from './store';
import { DEFAULT_FILE_TIMEOUT_MS } from './limits';
import { DEFAULT_WORKERS, WorkerPool } from './workerPool';

export type { FaultRule } from './faults';

export interface EmulatorOptions {
  host?: string;
  port?: number;
  dataDir?: string;
  apiKeys?: Record<string, string>;
  stepMs?: number;
  tokenDelayMs?: number;
  responseWords?: number;
  maxUploadBytes?: number;
  /** Processing workers (default: one less than the cores, 1..4). */
  processingWorkers?: number;
  /** How long one file's processing may take before its worker is ended (limits.ts). */
  fileTimeoutMs?: number;
  /** Heap cap of a processing worker in MB (limits.ts WORKER_HEAP_MB). */
  workerHeapMb?: number;
  testControls?: boolean;
  upstream?: UpstreamConfig;
  /** Serve the open shapes in another form (dialects.ts): a preset name, `key=value,…`, or an object. */
  dialect?: Dialect | string;
  log?: (line: string) => void;
  /** Start-up reports that must be seen (damaged files quarantined, an import); default console.warn. */
  warn?: (line: string) => void;
}

export interface RunningEmulator {
  readonly url: string;
  readonly apiKey: string;
  readonly userId: string;
  readonly dataDir: string;
  /** What the start reported through `warn` (quarantined files, an import of the older layout). */
  readonly warnings: readonly string[];
  readonly faults: { add(rule: FaultRule): void; clear(): void; release(): number; readonly held: number };
  readonly stats: EmulatorStats;
  readonly events: EventEmitter;
  /** Switches the dialect for the next requests (also `PUT /_emulator/dialect`). */
  setDialect(dialect: Dialect | string | undefined): void;
  waitForIdle(): Promise<void>;
  /** A stored agent thread, as the store has it (for tests that check what was saved). */
  readThread(id: string): Promise<Thread | undefined>;
  /** Every stored agent thread, oldest first. */
  readThreads(): Promise<Thread[]>;
  close(): Promise<void>;
}

export const DEFAULT_API_KEY = 'ksm-emulator-key';
export const DEFAULT_USER_ID = 'dev';
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

export function defaultDataDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'ksm-emulator');
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.has(host)) throw new Error(`the emulator only listens on loopback (127.0.0.1, ::1, localhost), not ${host}`);
  const apiKeys = options.apiKeys ?? { [DEFAULT_API_KEY]: DEFAULT_USER_ID };
  const [firstKey, firstUser] = Object.entries(apiKeys)[0] ?? [];
  if (!firstKey) throw new Error('apiKeys must hold at least one key');
  const dataDir = options.dataDir ?? defaultDataDir();
  const log = options.log ?? (() => undefined);
  const warnings: string[] = [];
  const warn = (line: string) => {
    warnings.push(line);
    (options.warn ?? ((text: string) => console.warn(`ksm emulator: ${text}`)))(line);
  };
  const store = await Store.open(dataDir, warn);
  const pool = new WorkerPool(options.processingWorkers ?? DEFAULT_WORKERS, options.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS, options.workerHeapMb);
  const processor = new Processor(store, pool, options.stepMs ?? 200, log);
  const shared: Shared = {
    store,
    threads: new ThreadStore(store.db),
    processor,
    faults: new FaultBook(),
    stats: { requests: 0, abortedStreams: 0, abortedUploads: 0 },
    events: new EventEmitter(),
    tokenDelayMs: options.tokenDelayMs ?? 15,
    responseWords: options.responseWords ?? 60,
    maxUploadBytes: options.maxUploadBytes ?? 2 * 1024 ** 3,
    upstream: options.upstream,
    dialect: parseDialect(options.dialect),
    log,
  };
  for (const record of store.unfinishedRecords()) processor.enqueue(record); // resume after a restart

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://emulator').pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    const started = Date.now();
    res.on('finish', () => log(`${method} ${path} ${res.statusCode} ${Date.now() - started}ms`));
    const ctx: RequestContext = { req, res, path, method, userId: '', shared };
    try {
      assertLoopbackHost(req.headers.host);
      await routeRequest(ctx, { apiKeys, testControls: options.testControls === true });
    } catch (error) {
      answerError(ctx, error);
    }
  };
  // close() waits for these: a handler may still be writing (an agent turn is saved after
  // `done` goes out), and a caller that deletes the data folder after close() must not race it.
  const inFlight = new Set<Promise<void>>();
  const server = createServer((req, res) => {
    const handling = handle(req, res).finally(() => inFlight.delete(handling));
    inFlight.add(handling);
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    apiKey: firstKey,
    userId: firstUser!,
    dataDir,
    warnings,
    faults: shared.faults,
    stats: shared.stats,
    events: shared.events,
    setDialect: (dialect) => {
      shared.dialect = parseDialect(dialect);
    },
    waitForIdle: () => processor.waitForIdle(),
    readThread: (id) => shared.threads.get(id),
    readThreads: () => shared.threads.all(),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await Promise.all(inFlight);
      await processor.stop();
      store.close();
    },
  };
}

/**
 * DNS rebinding guard: a web page can make a browser send requests to 127.0.0.1 under its
 * own host name; the Host header then names that site. Only loopback names and addresses
 * (any port) are served: localhost and *.localhost, 127.0.0.0/8, [::1].
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const match = /^(\[[^\]]+\]|[^:]+)(?::\d{1,5})?$/.exec(host.trim());
  if (!match) return false;
  const name = match[1].toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

function assertLoopbackHost(host: string | undefined): void {
  if (isLoopbackHost(host)) return;
  throw new HttpError(421, `the emulator only answers requests addressed to a loopback host (localhost, 127.0.0.1, [::1]); this one named Host "${(host ?? '(none)').slice(0, 100)}"`);
}

function answerError(ctx: RequestContext, error: unknown): void {
  const { req, res } = ctx;
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  const httpError = error instanceof HttpError ? error : new HttpError(500, `internal emulator error: ${(error as Error)?.message ?? String(error)}`);
  if (!(error instanceof HttpError)) ctx.shared.log(`internal error on ${ctx.method} ${ctx.path}: ${(error as Error)?.stack ?? error}`);
  if (!req.complete) {
    // The body was not read (early refusal): drain it so the client gets to read this answer.
    res.setHeader('Connection', 'close');
    req.resume();
  }
  sendDialectError(res, ctx.shared.dialect, httpError);
}
