// A fresh emulator per suite (real HTTP on loopback, its own temp data folder) and a client
// pointed at it, with a logger that keeps every line so tests can check what was logged.
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../emulator/server';
import { KsmClient, type KsmClientOptions } from '../../src/api/client';
import type { ClientLogger } from '../../src/api/types';

export interface Harness {
  emulator: RunningEmulator;
  dir: string;
  logLines: string[];
  client(overrides?: Partial<KsmClientOptions>): KsmClient;
  /** Writes a file under the suite's temp folder and returns its path. */
  file(name: string, content: string | Buffer): string;
}

export function recordingLogger(lines: string[]): ClientLogger {
  return {
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

/** Registers before/after hooks in the calling `describe` and returns the live harness. */
export function useEmulator(options: EmulatorOptions = {}): Harness {
  const harness = { logLines: [] as string[] } as Harness;
  before(async () => {
    harness.dir = mkdtempSync(join(tmpdir(), 'ksm-api-test-'));
    harness.emulator = await startEmulator({ port: 0, dataDir: join(harness.dir, 'data'), testControls: true, stepMs: 5, tokenDelayMs: 1, ...options });
    harness.client = (overrides = {}) =>
      new KsmClient({
        baseUrl: harness.emulator.url,
        apiKey: async () => harness.emulator.apiKey,
        logger: recordingLogger(harness.logLines),
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        ...overrides,
      });
    harness.file = (name, content) => {
      const path = join(harness.dir, name);
      writeFileSync(path, content);
      return path;
    };
  });
  afterEach(() => {
    harness.emulator.faults.clear();
    harness.logLines.length = 0;
  });
  after(async () => {
    await harness.emulator?.close();
    rmSync(harness.dir, { recursive: true, force: true });
  });
  return harness;
}

/** Collects an async iterable; returns what arrived and the error that ended it, if any. */
export async function drain<T>(iterable: AsyncIterable<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of iterable) items.push(item);
    return { items };
  } catch (error) {
    return { items, error };
  }
}

/** Resolves when the emulator emits `name` (mocha's timeout fails a test whose event never comes). */
export async function nextEvent(emulator: RunningEmulator, name: string): Promise<unknown> {
  const [payload] = await once(emulator.events, name);
  return payload;
}
