// What every route handler gets: the request, the caller, and the emulator's shared parts.
import type { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultBook } from './faults';
import type { Processor } from './pipeline';
import type { Store } from './store';
import type { ThreadStore } from './agentThreads';
import type { Dialect } from './dialects';

export interface UpstreamConfig {
  baseUrl: string;
  apiKey?: string;
  model?: string;
}

export interface EmulatorStats {
  requests: number;
  abortedStreams: number;
  abortedUploads: number;
}

export interface Shared {
  store: Store;
  threads: ThreadStore;
  processor: Processor;
  faults: FaultBook;
  stats: EmulatorStats;
  events: EventEmitter;
  tokenDelayMs: number;
  responseWords: number;
  maxUploadBytes: number;
  upstream?: UpstreamConfig;
  /** Alternative answer forms (dialects.ts); empty: our decisions. */
  dialect: Dialect;
  log: (line: string) => void;
}

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  method: string;
  userId: string;
  shared: Shared;
}
