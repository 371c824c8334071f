// "KSM: Check Connection", without VS Code: a read-only round against the configured
// service that takes seconds. Each step runs only when the steps it depends on passed, is
// timed, and says what to fix when it fails. Nothing here writes to the service: a listing
// (limit 1), a one-token completion, and, only when the user agreed, one tiny agent
// question (which starts a thread, so it is asked first).
import { checkBaseUrl } from '../../api/baseUrl';
import { isKsmError } from '../../api/errors';
import type { ProbeResult } from '../../api/probe';
import type { KsmService } from '../../api/service';
import type { ShapeObservation, ShapeObserver } from '../../api/shapes';
import { diagnose, fixFor, type FixContext, type Problem } from './fixes';
import { checkOutputFormat } from './outputFormatCheck';
import type { OutputFormat } from '../../api/chatParameterLimits';

export type StepId = 'address' | 'reach' | 'key' | 'personal-volume' | 'volumes' | 'model' | 'output-format' | 'agent';
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
  /** `ksm.chat.outputFormat`; the answer-format step runs only when it is set (outputFormatCheck.ts). */
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

/** How many configured named volumes are listed (each with limit 1). */
const MAX_NAMED_VOLUMES = 5;
const PING = 'Reply with one word: ok';

export async function runConnectionCheck(deps: CheckDeps): Promise<ConnectionReport> {
  const now = deps.now ?? (() => performance.now());
  const { target } = deps;
  const report: ConnectionReport = { target, startedAt: new Date(), steps: [], shapes: [] };
  const shapes: ShapeObserver = { observe: (o) => report.shapes.push(o) };
  const fixContext: FixContext = { baseUrl: target.baseUrl, proxy: target.network.proxy, caBundle: target.network.caBundle, model: target.model, agentId: target.agentId, userId: target.userId };
  const add = (step: StepResult) => {
    report.steps.push(step);
    deps.onStep?.(step);
    return step;
  };
  const skipRest = (ids: Array<[StepId, string]>, why: string) => {
    for (const [id, title] of ids) add({ id, title, status: 'skipped', detail: `Not run: ${why}.` });
  };
  const failed = (id: StepId, title: string, error: unknown, step: Parameters<typeof diagnose>[1], ms?: number, ctx: Partial<FixContext> = {}) => {
    if (deps.signal?.aborted) throw error;
    const diagnosis = diagnose(error, step, { ...fixContext, ...ctx });
    return add({ id, title, status: 'failed', ms, detail: diagnosis.said, problem: diagnosis.problem, fix: diagnosis.fix });
  };
  const timed = async <T>(work: () => Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> => {
    const start = now();
    try {
      const value = await work();
      return { value, ms: Math.round(now() - start) };
    } catch (error) {
      return { error, ms: Math.round(now() - start) };
    }
  };

  const later: Array<[StepId, string]> = [
    ['reach', 'Reach the service (network, proxy, TLS)'],
    ['key', 'API key accepted'],
    ['personal-volume', 'Personal volume listable'],
    ['volumes', 'Configured volumes listable'],
    ['model', `Model answers (streamed, one token)`],
    ['agent', 'Agent answers a tiny question'],
  ];

  // 1. The address itself.
  let url: string;
  try {
    url = checkBaseUrl(target.baseUrl).url;
    const parsed = new URL(url);
    fixContext.host = parsed.host;
    const secure = parsed.protocol === 'https:';
    add({ id: 'address', title: 'Service address', status: secure || isLocal(parsed.hostname) ? 'passed' : 'warning', detail: `${url} (${secure ? 'https' : isLocal(parsed.hostname) ? 'plain http on this machine' : 'plain http: the key travels unencrypted'}).`, ...(secure || isLocal(parsed.hostname) ? {} : { fix: "Use an https:// address unless this is a trusted local network." }) });
  } catch (error) {
    add({ id: 'address', title: 'Service address', status: 'failed', detail: firstLine(error), problem: 'address', fix: fixFor('address', fixContext).replace('the host name does not resolve', 'it is missing or not a valid http(s) URL') });
    skipRest(later, 'the service address is not usable');
    return report;
  }

  // 2. Reachable: any HTTP answer proves DNS, connection, proxy and TLS.
  const reach = await timed(() => deps.probe(`${url}/`));
  if (reach.error) {
    failed('reach', later[0][1], reach.error, 'reach', reach.ms);
    skipRest(later.slice(1), 'the service could not be reached');
    return report;
  }
  const probe = reach.value!;
  add({ id: 'reach', title: later[0][1], status: 'passed', ms: reach.ms, detail: `GET ${url}/ answered HTTP ${probe.status}${probe.contentType ? ` (${probe.contentType.split(';')[0]})` : ''} ${networkPath(target.network, url)}.` });

  // 3 and 4. The key, with the personal volume (limit 1): a 401 is the key; a 403 is the user id.
  if (!deps.hasApiKey) {
    add({ id: 'key', title: later[1][1], status: 'failed', detail: 'No API key is stored.', problem: 'no-key', fix: fixFor('no-key', fixContext) });
    skipRest(later.slice(2), 'no API key');
    return report;
  }
  const client = deps.client(shapes);
  const personal = target.userId ? `{${target.userId}}` : undefined;
  // Without a user id the key is tried on a named volume: an unknown one still answers 404 after authentication.
  const keyVolume = personal ?? target.volumes[0] ?? 'ksm-connection-check';
  const listing = await timed(() => client.listFiles({ volume: keyVolume, limit: 1 }, { signal: deps.signal }));
  const listingError = listing.error;
  const keyRefused = isKsmError(listingError) && (listingError.kind === 'auth' || listingError.kind === 'config');
  // A 404 that names the volume (by param, or in its message where the body has no param)
  // comes from the API after authentication; any other 404 is the address's.
  const volumeNotFound = (error: unknown) => isKsmError(error) && error.kind === 'not-found' && (error.param === 'volume' || /volume/i.test(error.message.replace(/^Listing files of volume '[^']*'/, '')));
  if (listingError && (!isKsmError(listingError) || !['permission', 'not-found', 'invalid-request'].includes(listingError.kind) || (listingError.kind === 'not-found' && !volumeNotFound(listingError)))) {
    failed('key', later[1][1], listingError, 'key', listing.ms);
    skipRest(later.slice(2), keyRefused ? 'the API key was not accepted' : 'the service did not answer the listing');
    return report;
  }
  add({ id: 'key', title: later[1][1], status: 'passed', ms: listing.ms, detail: `The service authenticated the key (listing ${keyVolume} answered ${listingError ? `HTTP ${(listingError as { status?: number }).status}` : 'OK'}).` });
  if (!personal) {
    add({ id: 'personal-volume', title: later[2][1], status: 'failed', detail: "'ksm.userId' is not set, so the personal volume is unknown.", problem: 'user-id', fix: fixFor('user-id', fixContext) });
  } else if (listingError) {
    failed('personal-volume', `${later[2][1]}: ${personal}`, listingError, 'key', listing.ms, { volume: personal });
  } else {
    const page = listing.value!;
    add({ id: 'personal-volume', title: `${later[2][1]}: ${personal}`, status: 'passed', ms: listing.ms, detail: `${page.total} file(s)${page.files[0] ? `; the first is in state '${page.files[0].status}'` : ''}.` });
  }

  // 5. The named volumes of ksm.volumes.list (limit 1 each); an unknown one is only created by its first upload.
  const named = target.volumes.filter((v) => v !== personal).slice(0, MAX_NAMED_VOLUMES);
  if (named.length === 0) {
    add({ id: 'volumes', title: later[3][1], status: 'skipped', detail: "'ksm.volumes.list' names no other volume." });
  } else {
    const notes: string[] = [];
    let worst: StepResult | undefined;
    let total = 0;
    for (const volume of named) {
      const result = await timed(() => client.listFiles({ volume, limit: 1 }, { signal: deps.signal }));
      total += result.ms;
      if (!result.error) notes.push(`${volume}: ${result.value!.total} file(s)`);
      // The same endpoint just answered for the personal volume, so a 404 here is this volume's.
      else if (isKsmError(result.error) && result.error.kind === 'not-found') notes.push(`${volume}: does not exist yet (its first upload creates it)`);
      else {
        if (deps.signal?.aborted) throw result.error;
        const diagnosis = diagnose(result.error, 'volume', { ...fixContext, volume });
        notes.push(`${volume}: ${diagnosis.said}`);
        worst ??= { id: 'volumes', title: later[3][1], status: 'failed', detail: '', problem: diagnosis.problem, fix: diagnosis.fix };
      }
    }
    add({ ...(worst ?? { id: 'volumes', title: later[3][1], status: 'passed' }), ms: total, detail: `${notes.join('; ')}.` });
  }

  // 6. One streamed token of the default model: time to the first chunk.
  const modelTitle = `Model '${target.model || '(none)'}' answers (streamed, one token)`;
  if (!target.model) {
    add({ id: 'model', title: modelTitle, status: 'failed', detail: 'No chat model is configured.', problem: 'model', fix: fixFor('model', { ...fixContext, model: undefined }) });
  } else {
    const start = now();
    let firstChunkMs: number | undefined;
    let text = '';
    let finish: string | undefined;
    const streamed = await timed(async () => {
      const stream = client.streamChatCompletion({ model: target.model, messages: [{ role: 'user', content: PING }], max_completion_tokens: 1 }, { signal: deps.signal });
      for await (const chunk of stream) {
        firstChunkMs ??= Math.round(now() - start);
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
    });
    if (streamed.error) failed('model', modelTitle, streamed.error, 'model', streamed.ms);
    else add({ id: 'model', title: modelTitle, status: 'passed', ms: firstChunkMs, detail: `First chunk after ${firstChunkMs ?? '?'} ms, stream ended with [DONE] after ${streamed.ms} ms${finish ? ` (finish_reason '${finish}')` : ''}; answer ${JSON.stringify(text.slice(0, 20))}.` });
    // 6b. Whether output_parser is honoured: its own step (outputFormatCheck.ts).
    if (!streamed.error && target.outputFormat) add(await checkOutputFormat(client, target.model, target.outputFormat, { signal: deps.signal, now }));
  }

  // 7. The agent, only when the user agreed (it starts a thread on the service).
  const agentTitle = `Agent '${target.agentId}' answers a tiny question`;
  if (!target.askAgent) {
    add({ id: 'agent', title: agentTitle, status: 'skipped', detail: 'Not asked: you chose the read-only check (an agent question starts a thread on the service).' });
  } else {
    const start = now();
    let firstEventMs: number | undefined;
    const kinds: string[] = [];
    let threadId = '';
    let text = '';
    const asked = await timed(async () => {
      const stream = client.streamAgentMessage({ agent_id: target.agentId, query: PING, context: { model: target.agentModel || target.model } }, { signal: deps.signal });
      for await (const event of stream) {
        firstEventMs ??= Math.round(now() - start);
        kinds.push(event.kind === 'unknown' ? `unknown '${event.event}'` : event.kind);
        if ('threadId' in event && event.threadId && !threadId) threadId = event.threadId;
        if (event.kind === 'message') text += event.delta;
        if (event.kind === 'error') throw Object.assign(new Error(`The agent reported an error: ${event.message}`), { agentCode: event.code });
      }
    });
    if (asked.error) {
      failed('agent', agentTitle, asked.error, 'agent', asked.ms, { model: target.agentModel || target.model });
    } else {
      const problems = [!threadId && 'no thread id arrived', !text && 'no answer text arrived'].filter(Boolean) as string[];
      const detail = `First event after ${firstEventMs ?? '?'} ms, ended after ${asked.ms} ms; events: ${summarizeKinds(kinds)}; thread id ${threadId ? 'received' : 'missing'}; answer ${JSON.stringify(text.slice(0, 20))}.`;
      add(problems.length
        ? { id: 'agent', title: agentTitle, status: 'warning', ms: firstEventMs, detail: `${detail} But ${problems.join(' and ')}.`, problem: 'stream', fix: fixFor('stream', fixContext) }
        : { id: 'agent', title: agentTitle, status: 'passed', ms: firstEventMs, detail });
    }
  }
  return report;
}

function summarizeKinds(kinds: string[]): string {
  const out: string[] = [];
  for (const kind of kinds) {
    const last = out[out.length - 1];
    const match = last && new RegExp(`^${kind.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( ×(\\d+))?$`).exec(last);
    if (match) out[out.length - 1] = `${kind} ×${Number(match[2] ?? 1) + 1}`;
    else out.push(kind);
  }
  return out.join(', ') || 'none';
}

function networkPath(network: NetworkSummary, url: string): string {
  const bypass = network.noProxy?.length ? ` (hosts on http.noProxy go direct: ${network.noProxy.join(', ')})` : '';
  const parts = [network.proxy ? `through the proxy ${network.proxy}${bypass}` : 'directly (no proxy)'];
  if (url.startsWith('https:')) {
    parts.push(network.strictSSL ? `TLS verified against ${network.caBundle ? `Node's CAs plus ${network.caBundle}` : "Node's built-in CAs"}` : 'TLS NOT verified (http.proxyStrictSSL is off)');
  }
  return parts.join(', ');
}

function isLocal(hostname: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/i.test(hostname);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
