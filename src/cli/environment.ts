// Where the command line gets the service: KSM_BASE_URL and KSM_API_KEY only (a flag would
// land the key in shell history and `ps`), proxies from HTTPS_PROXY/NO_PROXY as usual, an
// extra CA bundle from KSM_CA_BUNDLE. Errors never contain the key. And how the process
// tunes V8 for a short run (tuneV8ForShortRuns). No `vscode` import.
import { setFlagsFromString } from 'node:v8';
import { checkBaseUrl } from '../api/baseUrl';
import { KsmClient } from '../api/client';
import { ConfigurationError, errorMessage, InvalidRequestError, isConfigurationAnswer, KsmError, NetworkError, NotFoundError, redactSecrets } from '../api/errors';
import { messageWithFix } from '../common/core/errorFixes';
import { isPersonalVolumeName, volumeNameProblem } from '../common/core/volumeTargets';
import { SyncBusyError } from '../sync/core/lock';
import { shown } from './output';
import { createDispatcher } from '../api/network';
import type { ClientLogger } from '../api/types';

export interface CliEnvironment {
  client: KsmClient;
  /** The normalised service address (the sync manifest records it). */
  baseUrl: string;
  apiKey: string;
  embedding: string;
  /** Plain http:// to another machine: the key travels in clear (warned on stderr, as the editor warns in its log). */
  insecure: boolean;
}

/** The one warning for an `insecure` address, for stderr. */
export const INSECURE_ADDRESS_WARNING = 'warning: KSM_BASE_URL is plain http:// to another machine, so the API key travels unencrypted. Use https://.';

/** The V8 flags `ksm` sets for itself on Node 20 (tuneV8ForShortRuns says why). */
export const SHORT_RUN_V8_FLAGS: readonly string[] = ['--liftoff-only', `--interrupt-budget=${16 * 67_584}`];

/**
 * A `ksm` run is short (a first sync of 5,000 files takes about two seconds), and Node 20's
 * V8 (11.x) spends much of its CPU compiling for a long one, on background threads that
 * compete with everything else on a CI runner's cores (docs/benchmarks.md):
 * - it compiles undici's HTTP parser (WebAssembly) with TurboFan at every start, about
 *   0.1 s of CPU, though a run parses a few hundred small answers (Liftoff's code is fast
 *   enough for that: `--liftoff-only`);
 * - it sends every function that has run a few thousand times to TurboFan. Sixteen times
 *   the default interrupt budget (67,584) still optimises code that stays hot (a long
 *   `ksm mcp`), only later.
 * Newer V8 tiers both up lazily and cheaply (Maglev), and has no `--interrupt-budget` (an
 * unknown flag prints an error): nothing is set there. Only the CLI's own process calls
 * this, never the extension host. Returns the flags set.
 */
export function tuneV8ForShortRuns(v8Version = process.versions.v8, setFlag: (flag: string) => void = setFlagsFromString): readonly string[] {
  const major = Number.parseInt(v8Version, 10);
  if (!(major <= 11)) return []; // newer V8, or a version this cannot read: left as it is
  for (const flag of SHORT_RUN_V8_FLAGS) setFlag(flag);
  return SHORT_RUN_V8_FLAGS;
}

/** What `ksm` needs from the environment, checked before any request. */
export function environmentFrom(env: NodeJS.ProcessEnv, logger?: ClientLogger): CliEnvironment {
  const rawUrl = env.KSM_BASE_URL?.trim();
  if (!rawUrl) throw new ConfigurationError('KSM_BASE_URL is not set. Export the service address, for example: export KSM_BASE_URL=https://ksm.example.com');
  let url: string;
  let insecure: boolean;
  try {
    ({ url, insecure } = checkBaseUrl(rawUrl));
  } catch (error) {
    throw new ConfigurationError(`KSM_BASE_URL is not usable: ${(error as Error).message.replace(/'ksm\.baseUrl'/g, 'the address')}`);
  }
  const apiKey = env.KSM_API_KEY?.trim();
  if (!apiKey) throw new ConfigurationError('KSM_API_KEY is not set. Export your API key in the environment (never pass it as a flag): export KSM_API_KEY=…');
  // Set but not a number of seconds (`2m`, `0`): said, not silently replaced by the default.
  const rawTimeout = env.KSM_TIMEOUT_SECONDS?.trim();
  const timeoutSeconds = rawTimeout ? Number(rawTimeout) : undefined;
  if (timeoutSeconds !== undefined && !(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0))
    throw new ConfigurationError(`KSM_TIMEOUT_SECONDS is not usable: '${shown(rawTimeout!)}' is not a number of seconds above 0. Unset it for the default (60).`);
  const client = new KsmClient({
    baseUrl: url,
    apiKey: async () => apiKey,
    userAgent: 'ksm-cli',
    timeoutMs: timeoutSeconds !== undefined ? timeoutSeconds * 1000 : undefined,
    dispatcher: createDispatcher({ caBundlePath: env.KSM_CA_BUNDLE, env }),
    logger,
  });
  return { client, baseUrl: url, apiKey, embedding: env.KSM_EMBEDDING_MODEL?.trim() ?? '', insecure };
}

/** Exit codes CI can act on (documented in `ksm --help` and the README). */
export const EXIT = {
  ok: 0,
  /** Some files failed; the rest were done. */
  partial: 1,
  usage: 2,
  /** KSM_BASE_URL / KSM_API_KEY missing or refused, or the service said no to this key. */
  config: 3,
  /** The delete guard refused; re-run with --allow-mass-delete. */
  guard: 4,
  /** The service or the network failed. */
  service: 5,
  /** Another sync of the same folder and volume is running (nothing was changed). */
  busy: 6,
  cancelled: 130,
} as const;

/** A mistake in the command line itself (a missing folder, a bad volume name, conflicting flags): exit 2. */
export class UsageError extends ConfigurationError {
  readonly usage = true;
}

/** A volume argument the service would refuse (D5), as a usage error before any request. */
export function checkVolumeArgument(volume: string): void {
  if (isPersonalVolumeName(volume)) return;
  const problem = volumeNameProblem(volume);
  if (problem) throw new UsageError(`'${shown(volume)}' is not a volume name: ${problem}`);
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof SyncBusyError) return EXIT.busy;
  const kind = (error as KsmError)?.kind;
  if (kind === 'cancelled') return EXIT.cancelled;
  // `ksm ask` rethrows the answer's sentence with the service's error as its cause.
  const cause = error instanceof KsmError ? error : (error as Error | undefined)?.cause;
  // Refused by the client's own validation before anything was sent (a value no command checked first): the command line was wrong.
  if (cause instanceof InvalidRequestError && cause.status === undefined) return EXIT.usage;
  if (isConfigurationAnswer(cause)) return EXIT.config;
  return EXIT.service;
}

/** One line for stderr: the error's message with the key removed, and the fix for a refused key. */
export function describeError(error: unknown, apiKey?: string, env: NodeJS.ProcessEnv = process.env): string {
  const kind = (error as KsmError)?.kind;
  let message = errorMessage(error);
  // A refused connection gets the fix sentence of the one table (errorFixes), minus the editor-only command.
  if (error instanceof NetworkError && error.code === 'ECONNREFUSED') {
    message = messageWithFix(error).replace(/, or run 'KSM: Check Connection'/, '');
    // Through a proxy the refusal may be the proxy's, and "start the service" would send an ops engineer the wrong way.
    // Named, never shown: a proxy URL may hold a password.
    const proxy = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].find((name) => env[name]?.trim());
    if (proxy) message += ` ${proxy} is set: if the proxy refused, check it, or list the service's host in NO_PROXY.`;
  }
  // A 404 that blames no parameter is the address's (isUnwrittenVolume): say so, as Check Connection does.
  if (error instanceof NotFoundError && !error.param) message += " The address answers, but not as the KSM API (a sign-in page, a proxy or another server?): check KSM_BASE_URL, the API's root.";
  if (kind === 'auth') message = `The service refused the API key in KSM_API_KEY (${message.replace(/\s?Set your API key with 'KSM: Set API Key'\.?/, '')}). Check KSM_API_KEY.`;
  message = message
    .replace(/'KSM: Set API Key'/g, 'KSM_API_KEY')
    .replace(/'ksm\.baseUrl'/g, 'KSM_BASE_URL')
    .replace(/'ksm\.request\.timeoutSeconds'/g, 'KSM_TIMEOUT_SECONDS')
    // The CA bundle's errors (src/api/network.ts) name the editor's setting; here it came from KSM_CA_BUNDLE.
    .replace(/\(setting ksm\.network\.caBundle\)/g, '(KSM_CA_BUNDLE)')
    .replace(/Fix the path or clear the setting\./g, 'Fix the path or unset KSM_CA_BUNDLE.');
  return redactSecrets(message, [apiKey]);
}
