// Which problem a failed Check Connection step is (wrong URL, proxy, certificate, key, model
// id, volume name…), read from the error and the step it failed in. What to change for each
// problem is the one table of src/common/core/errorFixes.ts.
import { codeOf } from '../../api/httpErrors';
import { errorFirstLine, errorMessage, isKsmError } from '../../api/errors';
import { fixFor, type FixContext, type Problem } from '../../common/core/errorFixes';

export interface Diagnosis {
  problem: Problem;
  /** One sentence: what happened. */
  said: string;
  /** One or two sentences: what to change. */
  fix: string;
}

const CERTIFICATE_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/i;
const ADDRESS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'ERR_INVALID_URL']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ENETDOWN']);

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
