import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { connect, STORE_FILE } from '../../../emulator/database';
import { freePort, startProcess, waitForHttp, type ManagedProcess } from './processes';
import { REPO_ROOT } from './paths';

/** A fault rule of the emulator's test controls (emulator/README.md, D22). */
export type FaultRule = Record<string, unknown> & { kind: string };

/**
 * A fresh emulator for one e2e run: its own port and data folder, test controls on, and a
 * short processing step so uploads reach `done` in a few seconds. Started through the
 * same CLI a user runs (`npm run emulator`), in its own process group.
 */
export class EmulatorProcess {
  private constructor(
    readonly url: string,
    readonly apiKey: string,
    readonly userId: string,
    readonly dataDir: string,
    private readonly process_: ManagedProcess,
  ) {}

  static async start(logFile: string): Promise<EmulatorProcess> {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'ksm-e2e-emulator-'));
    // Deliberately not the emulator's default key, so a test can only pass if the key the
    // user typed is the one the extension sends.
    // scripts/test.sh sets a distinctive one and hunts for it afterwards (scripts/key-hunt.mjs).
    const apiKey = process.env.KSM_E2E_API_KEY || `e2e-key-${Math.random().toString(36).slice(2, 12)}`;
    // Not the emulator's default user either: "My files" must come from the ksm.userId setting.
    const userId = 'e2e-user';
    const args = [
      'emulator/cli.ts',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--api-key',
      apiKey,
      '--user-id',
      userId,
      '--test-controls',
      '--step-ms',
      '150',
      // Answers long and slow enough (about 5 s) that a test can watch one grow and stop it.
      '--response-words',
      '160',
      '--token-delay-ms',
      '25',
    ];
    const child = startProcess('emulator', join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), args, { cwd: REPO_ROOT, logFile });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/_emulator/stats`, child, 30_000);
    return new EmulatorProcess(url, apiKey, userId, dataDir, child);
  }

  async addFault(rule: FaultRule): Promise<void> {
    await this.control('POST', '/_emulator/faults', rule);
  }

  async clearFaults(): Promise<void> {
    await this.control('DELETE', '/_emulator/faults');
  }

  /** Serves the open shapes in another form (emulator/dialects.ts): a preset, `key=value,…`, or `'default'`. */
  async setDialect(dialect: string | Record<string, unknown>): Promise<void> {
    await this.control('PUT', '/_emulator/dialect', { dialect });
  }

  async stats(): Promise<Record<string, unknown>> {
    return (await this.control('GET', '/_emulator/stats')) as Record<string, unknown>;
  }

  /**
   * Calls the real service API as a user would (for seeding and checking state). undici,
   * not fetch: the listing is a GET with a JSON body, which fetch refuses to send.
   */
  async api(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    const response = await request(this.url + path, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`emulator ${method} ${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** Lists a volume through the service API (FileInfo per D8). */
  async listFiles(volume: string): Promise<Array<{ uuid: string; filename: string; status: string }>> {
    const answer = (await this.api('GET', '/ksm/rag/v5/files', { volume, offset: 0, limit: 1000 })) as { infoz?: Array<{ uuid: string; filename: string; status: string }> };
    return answer.infoz ?? [];
  }

  /** Uploads one file through the service API (seeding for scenarios that are not about upload). */
  async uploadFile(volume: string, filename: string, content: string, doChunking: 0 | 1 | 2 = 1): Promise<{ uuid: string; filename: string }> {
    const form = new FormData();
    form.append('volume', volume);
    form.append('embedding', 'emu-embed');
    form.append('do_chunking', String(doChunking));
    form.append('file', new Blob([content], { type: 'text/plain' }), filename);
    const response = await fetch(`${this.url}/ksm/rag/v5/files`, { method: 'POST', headers: { authorization: `Bearer ${this.apiKey}` }, body: form });
    const answer = (await response.json()) as { infoz?: Array<{ uuid: string; filename: string }> };
    const info = answer.infoz?.[0];
    if (!response.ok || !info) throw new Error(`seeding upload of ${filename} answered ${response.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    return info;
  }

  /** Agent threads as the emulator stored them (D17), read from its SQLite store (emulator/README.md). */
  agentThreads(): Array<{ id: string; turns: Array<{ query: string }> }> {
    const path = join(this.dataDir, STORE_FILE);
    if (!existsSync(path)) return [];
    const db = connect(path, { readonly: true });
    try {
      const ids = (db.prepare('SELECT id FROM threads ORDER BY created, id').all() as Array<{ id: string }>).map((row) => row.id);
      const turns = db.prepare('SELECT body FROM turns WHERE thread_id = ? ORDER BY n');
      return ids.map((id) => ({ id, turns: (turns.all(id) as Array<{ body: string }>).map((row) => JSON.parse(row.body) as { query: string }) }));
    } finally {
      db.close();
    }
  }

  output(): string {
    return this.process_.output();
  }

  async stop(): Promise<void> {
    await this.process_.stop();
  }

  private async control(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(this.url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`emulator test control ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }
}
