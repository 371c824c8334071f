// What went wrong in a Check Connection step, and what the user does about it: the one
// table from failure to fix (wrong URL, proxy, certificate, key, model id, volume name…).
import { codeOf } from '../../api/httpErrors';
import { errorFirstLine, errorMessage, isKsmError } from '../../api/errors';

export type Problem =
  | 'address'
  | 'refused'
  | 'unreachable'
  | 'proxy'
  | 'certificate'
  | 'timeout'
  | 'not-the-api'
  | 'no-key'
  | 'key'
  | 'user-id'
  | 'volume'
  | 'model'
  | 'agent'
  | 'rate-limited'
  | 'server'
  | 'stream'
  | 'other';

export interface Diagnosis {
  problem: Problem;
  /** One sentence: what happened. */
  said: string;
  /** One or two sentences: what to change. */
  fix: string;
}

export interface FixContext {
  baseUrl: string;
  host?: string;
  proxy?: string;
  caBundle?: string;
  model?: string;
  agentId?: string;
  volume?: string;
  userId?: string;
}

const CERTIFICATE_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/i;
const ADDRESS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ERR_INVALID_URL']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ENETDOWN']);

/** The fix for each problem, phrased for the context of the failing step. */
export function fixFor(problem: Problem, ctx: FixContext): string {
  switch (problem) {
    case 'address':
      return `Check 'ksm.baseUrl' (now '${ctx.baseUrl}'): the host name does not resolve. Use the service's root address, for example https://ksm.example.com.`;
    case 'refused':
      return `Nothing accepts connections at ${ctx.host ?? ctx.baseUrl}. Check the host and port in 'ksm.baseUrl' (now '${ctx.baseUrl}'), or start the service (the local emulator: npm run emulator).`;
    case 'unreachable':
      return `The network path to ${ctx.host ?? ctx.baseUrl} is broken. Check the network or VPN${ctx.proxy ? ` and the proxy ${ctx.proxy}` : ", and whether you need a proxy ('http.proxy')"}.`;
    case 'proxy':
      return `The proxy ${ctx.proxy ?? ''} did not let the request through. Check 'http.proxy' (or HTTPS_PROXY/HTTP_PROXY), or add the service's host to 'http.noProxy' if it is reached directly.`;
    case 'certificate':
      return `The service's TLS certificate is not trusted. If your company inspects TLS, save its root CA as a PEM file and set 'ksm.network.caBundle' to it${ctx.caBundle ? ` (now '${ctx.caBundle}': it does not hold the right CA)` : ''}; turn off 'http.proxyStrictSSL' only for a test.`;
    case 'timeout':
      return `The service did not answer in time. Check the network and proxy, or raise 'ksm.request.timeoutSeconds'.`;
    case 'not-the-api':
      return `The address answers, but not as the KSM API (a sign-in page, a proxy or another server?). Check 'ksm.baseUrl' (now '${ctx.baseUrl}'): it must be the API's root, without a path such as /v3 or /ksm.`;
    case 'no-key':
      return "Set your API key with 'KSM: Set API Key'.";
    case 'key':
      return "The service refused the API key. Set the right key with 'KSM: Set API Key' (keys are per service: an emulator key does not work on the real service).";
    case 'user-id':
      return ctx.userId
        ? `Your personal volume is {<your user id>}, and '${ctx.userId}' is not yours for this key. Set 'ksm.userId' to the user id of this API key.`
        : "Set 'ksm.userId' to your user id: your personal volume is {<user id>}.";
    case 'volume':
      return `Check the volume name '${ctx.volume ?? ''}' in 'ksm.volumes.list': letters, digits, '.', '_' and '-', starting with a letter or digit; ask the administrators for access to a volume you may not read.`;
    case 'model':
      return ctx.model
        ? `The service does not know the model '${ctx.model}'. Put model ids the service offers in 'ksm.chat.models' (the first is the default, or set 'ksm.chat.defaultModel').`
        : "Set 'ksm.chat.models' to the chat model ids the service offers.";
    case 'agent':
      return `Check 'ksm.agent.id' (now '${ctx.agentId ?? ''}') and 'ksm.agent.model'.`;
    case 'rate-limited':
      return 'The service is limiting requests. Wait a minute and check again.';
    case 'server':
      return 'The service itself has a problem. Try again later; if it persists, send this report (Copy Report) to the service\'s administrators.';
    case 'stream':
      return "The answer stream did not end as expected. Send this report (Copy Report) to the service's administrators; the shapes below show what arrived.";
    default:
      return "Send this report (Copy Report) to the service's administrators.";
  }
}

/** Reads a failed call's error as the problem behind it. `step` says what the call was for. */
export function diagnose(error: unknown, step: 'reach' | 'key' | 'volume' | 'model' | 'agent', ctx: FixContext): Diagnosis {
  const said = firstSentence(error);
  const problem = problemOf(error, step, ctx);
  return { problem, said, fix: fixFor(problem, ctx) };
}

/** The messages of the causes only: our own messages mention "proxy settings" in every hint. */
function causeText(error: unknown): string {
  const parts: string[] = [];
  let current = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    parts.push(errorMessage(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(' ');
}

/** The host:port a failed connection tried, when the system error says (errno errors carry address and port). */
function failedAddress(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 6; depth++) {
    const { address, port } = current as { address?: unknown; port?: unknown };
    if (typeof address === 'string' && port !== undefined) return `${address}:${port}`;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function isProxyAddress(address: string | undefined, proxy: string | undefined): boolean {
  if (!address || !proxy) return false;
  let url: URL;
  try {
    url = new URL(proxy.split(' ')[0]);
  } catch {
    return false;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const cut = address.lastIndexOf(':');
  const [addressHost, addressPort] = [address.slice(0, cut), address.slice(cut + 1)];
  const loopback = (h: string) => /^(127\.|::1$|localhost$|::ffff:127\.)/.test(h);
  return addressPort === port && (addressHost === host || (loopback(addressHost) && loopback(host)));
}

function problemOf(error: unknown, step: 'reach' | 'key' | 'volume' | 'model' | 'agent', ctx: FixContext): Problem {
  const code = codeOf(error) ?? '';
  const text = causeText(error);
  if (!isKsmError(error)) return /proxy/i.test(`${text} ${String(error)}`) ? 'proxy' : 'other';
  const param = error.param ?? '';
  switch (error.kind) {
    case 'config':
      return /API key/i.test(error.message) ? 'no-key' : /caBundle|CA bundle/i.test(error.message) ? 'certificate' : /proxy/i.test(error.message) ? 'proxy' : 'address';
    case 'network':
      if (/proxy/i.test(text) && !CERTIFICATE_CODES.test(code)) return 'proxy';
      if (ctx.proxy && isProxyAddress(failedAddress(error), ctx.proxy)) return 'proxy';
      if (CERTIFICATE_CODES.test(code) || /certificate|self[- ]signed/i.test(text)) return 'certificate';
      if (ADDRESS_CODES.has(code)) return 'address';
      if (code === 'ECONNREFUSED') return 'refused';
      if (UNREACHABLE_CODES.has(code)) return 'unreachable';
      return 'unreachable';
    case 'timeout':
      return 'timeout';
    case 'auth':
      return 'key';
    case 'permission':
      // On the personal volume a 403 means ksm.userId is someone else's; on a named one, no access.
      return step === 'key' ? 'user-id' : step === 'volume' ? 'volume' : step === 'model' ? 'model' : 'other';
    case 'not-found':
      if (param === 'model' || param === 'context.model') return 'model';
      if (param === 'agent_id') return 'agent';
      if (param === 'volume') return step === 'key' ? 'user-id' : 'volume';
      // A 404 without a parameter is the address's, not the API's.
      return 'not-the-api';
    case 'invalid-request':
      if (/model/.test(param) || /\bmodel\b/i.test(error.message)) return 'model';
      if (param === 'volume') return step === 'key' ? 'user-id' : 'volume';
      if (error.status === 405) return 'not-the-api';
      return step === 'model' ? 'model' : 'other';
    case 'rate-limited':
      return 'rate-limited';
    case 'server':
      return 'server';
    case 'bad-response':
      return step === 'model' || step === 'agent' ? 'stream' : 'not-the-api';
    case 'stream-error':
    case 'cut-off':
      return 'stream';
    default:
      return 'other';
  }
}

function firstSentence(error: unknown): string {
  const line = errorFirstLine(error);
  return line.length > 300 ? `${line.slice(0, 297)}…` : line;
}
