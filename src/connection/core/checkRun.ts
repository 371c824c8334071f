// What every step of "KSM: Check Connection" works with: the target and its dependencies,
// the report the steps add to, and the three helpers each step needs (add a result, turn a
// failed call into a diagnosed result, time a call). The steps themselves are in
// addressSteps.ts, accountSteps.ts and answerSteps.ts; connectionCheck.ts runs them in order.
import type { OutputFormat } from '../../api/chatParameterLimits';
import type { ProbeResult } from '../../api/probe';
import type { KsmService } from '../../api/service';
import type { ShapeObservation, ShapeObserver } from '../../api/shapes';
import type { FileListPage } from '../../api/types';
import { personalVolumeName } from '../../common/core/volumeTargets';
import type { FixContext, Problem } from '../../common/core/errorFixes';
import { diagnose } from './fixes';

/** `api`: added only when the address answers but not as the KSM API (or the service fails), so the key is not blamed. */
export type StepId = 'address' | 'reach' | 'api' | 'key' | 'personal-volume' | 'volumes' | 'model' | 'output-format' | 'agent';
export type StepStatus = 'passed' | 'failed' | 'warning' | 'skipped';

export interface StepResult {
  id: StepId;
  title: string;
  status: StepStatus;
  /** Milliseconds the step's call took (for the model: until the first chunk, see `detail`). */
  ms?: number;
  /** One or two sentences: what was done and seen. */
  detail: string;
  problem?: Problem;
  fix?: string;
}

export interface NetworkSummary {
  /** The proxy in use, without credentials, and where it came from. */
  proxy?: string;
  noProxy?: string[];
  strictSSL: boolean;
  caBundle?: string;
}

export interface CheckTarget {
  /** `ksm.baseUrl` as set. */
  baseUrl: string;
  userId: string;
  volumes: string[];
  model: string;
  agentId: string;
  agentModel: string;
  /** `ksm.chat.outputFormat` (default chat): what the answer-format step (outputFormatCheck.ts) judges the service's answer against. */
  outputFormat?: OutputFormat;
  network: NetworkSummary;
  /** The user agreed to one tiny agent question (it starts a thread on the service). */
  askAgent: boolean;
  /** Version line for the report ("ksm-assistant 0.1.0, VS Code 1.100"). */
  client?: string;
}

export interface CheckDeps {
  target: CheckTarget;
  hasApiKey: boolean;
  /** A client for the target whose answers report their shapes to `shapes`. */
  client(shapes: ShapeObserver): KsmService;
  /** One request to `url` without the key, through the same network stack. */
  probe(url: string): Promise<ProbeResult>;
  signal?: AbortSignal;
  now?: () => number;
  onStep?(step: StepResult): void;
}

export interface ConnectionReport {
  target: CheckTarget;
  startedAt: Date;
  steps: StepResult[];
  shapes: ShapeObservation[];
}

/**
 * One step of the check. `run` adds its result (`check.add` or `check.failed`) and returns
 * why the steps after it cannot run (they are listed as skipped under their `title`), or
 * undefined to go on.
 */
export interface CheckStep {
  id: StepId;
  /** The title the step is listed under when it is skipped (a step may add a more precise one when it runs). */
  title: string;
  run(check: CheckRun): Promise<string | undefined>;
}

export interface Timed<T> {
  value?: T;
  error?: unknown;
  ms: number;
}

/** What diagnose() is told a failed call was for. */
export type CallPurpose = Parameters<typeof diagnose>[1];

export class CheckRun {
  readonly report: ConnectionReport;
  /** What fixes are phrased with; steps add what they learn (the host). */
  readonly fixContext: FixContext;
  /** The service address, normalised; set by the address step. */
  url = '';
  /** The key step's one-file listing of the personal (or first named) volume, read again by the personal-volume step. */
  keyListing?: Timed<FileListPage>;
  private clientValue?: KsmService;
  private readonly clock: () => number;

  constructor(readonly deps: CheckDeps) {
    const { target } = deps;
    this.clock = deps.now ?? (() => performance.now());
    this.report = { target, startedAt: new Date(), steps: [], shapes: [] };
    this.fixContext = { baseUrl: target.baseUrl, proxy: target.network.proxy, caBundle: target.network.caBundle, model: target.model, agentId: target.agentId, userId: target.userId };
  }

  get target(): CheckTarget {
    return this.deps.target;
  }

  get signal(): AbortSignal | undefined {
    return this.deps.signal;
  }

  /** The personal volume `{userId}`, or undefined when no user id is set. */
  get personal(): string | undefined {
    return personalVolumeName(this.target.userId);
  }

  now(): number {
    return this.clock();
  }

  /** The one client of the run (created on first use, after the key step found a key); its answers' shapes go into the report. */
  client(): KsmService {
    return (this.clientValue ??= this.deps.client({ observe: (o) => this.report.shapes.push(o) }));
  }

  add(step: StepResult): StepResult {
    this.report.steps.push(step);
    this.deps.onStep?.(step);
    return step;
  }

  /** A failed call as a step result: what was said and the fix for it. A cancelled run ends here (the error is thrown again). */
  failed(id: StepId, title: string, error: unknown, purpose: CallPurpose, ms?: number, ctx: Partial<FixContext> = {}): StepResult {
    if (this.signal?.aborted) throw error;
    const diagnosis = diagnose(error, purpose, { ...this.fixContext, ...ctx });
    return this.add({ id, title, status: 'failed', ms, detail: diagnosis.said, problem: diagnosis.problem, fix: diagnosis.fix });
  }

  /** Runs `work`, never throwing: its value or its error, and how long it took. */
  async timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
    const start = this.now();
    try {
      const value = await work();
      return { value, ms: Math.round(this.now() - start) };
    } catch (error) {
      return { error, ms: Math.round(this.now() - start) };
    }
  }
}

/** Ends text with one full stop, unless it already ends a sentence ("…", "?", "!"): never "..". */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
