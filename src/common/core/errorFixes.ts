// Problem → fix, in one table: what to change (Check Connection's report) and, where one
// click fixes it, the button. The command error wrapper's buttons, the chat's notification
// after a failed answer, the Volumes tree's clickable error row and Check Connection all
// read it, so a problem gets the same fix everywhere. The error's own text already says
// what to do (src/api writes it so); this adds the button, or the report's advice.
// vscode-free: it names commands by their typed ids, and translates through @vscode/l10n
// (configured with VS Code's bundle at activation; English in the CLI). Every text is built
// when asked for, never at module load, so it is read after the bundle is configured.
import * as l10n from '@vscode/l10n';
import { errorFirstLine, isKsmError, NetworkError, NoApiKeyError } from '../../api/errors';
import { COMMAND, type CommandId } from './contributionIds';
import { shownInMessage } from './untrustedText';

export interface ErrorFix {
  /** One line saying what is wrong, for a notification whose button applies the fix. */
  problem: string;
  /** The button or click that fixes it. */
  action: { title: string; command: CommandId };
  /** Other ways to fix it, offered beside `action` (not connected: a service key or the emulator). */
  alternatives?: Array<ErrorFix['action']>;
  /** What to do, said after the error's own sentence when that sentence does not say it (src/api states only the fact). */
  hint?: string;
}

const SET_API_KEY = (): ErrorFix['action'] => ({ title: l10n.t('Set API Key'), command: COMMAND.setApiKey });
const OPEN_SETTINGS = (): ErrorFix['action'] => ({ title: l10n.t('Open Settings'), command: COMMAND.openSettings });
const CHECK_CONNECTION = (): ErrorFix['action'] => ({ title: l10n.t('Check Connection'), command: COMMAND.checkConnection });
const CONNECT_EMULATOR = (): ErrorFix['action'] => ({ title: l10n.t('Connect to Local Emulator'), command: COMMAND.useLocalEmulator });

/** Said when a question is sent, or a call made, before any service is set up (no address or no key). */
export const notConnectedMessage = (): string => l10n.t('Not connected to a KSM service. Set the API key of your service, or connect to the local emulator, then retry.');

/** The error a front end raises for "not connected"; `errorFix` offers both ways to connect for it. */
export class NotConnectedError extends Error {
  constructor() {
    super(notConnectedMessage());
    this.name = 'NotConnectedError';
  }
}

/**
 * Every problem the extension names, once: what the user changes to fix it (`advice`,
 * phrased with what is known about the failing call: Check Connection's report reads it)
 * and, where one click fixes it, the notification's one line and its button (`oneClick`,
 * what `errorFix` offers). Check Connection decides which problem a failed step is
 * (src/connection/core/fixes.ts, step-aware); `errorFix` decides it from the error alone.
 */
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
  | 'not-connected'
  | 'not-configured'
  | 'other';

/** What a fix may name: the settings and the call that failed. */
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

interface ProblemRow {
  /** One or two sentences: what to change. */
  advice(ctx: FixContext): string;
  oneClick?: () => ErrorFix;
}

/**
 * What to change in 'ksm.baseUrl', by what is wrong with it: its host name does not
 * resolve (a call failed), or it is missing or not an http(s) URL (Check Connection's
 * first step). Whole sentences, so each translation words its own.
 */
export function addressAdvice(ctx: FixContext, why: 'unresolved' | 'invalid'): string {
  return why === 'invalid'
    ? l10n.t("Check 'ksm.baseUrl' (now '{0}'): it is missing or not a valid http(s) URL. Use the service's root address, for example https://ksm.example.com.", ctx.baseUrl)
    : l10n.t("Check 'ksm.baseUrl' (now '{0}'): the host name does not resolve. Use the service's root address, for example https://ksm.example.com.", ctx.baseUrl);
}

const reportToAdmins = (): string => l10n.t("Send this report (Copy Report) to the service's administrators.");

const PROBLEMS: Record<Problem, ProblemRow> = {
  address: { advice: (ctx) => addressAdvice(ctx, 'unresolved') },
  refused: {
    advice: (ctx) =>
      l10n.t(
        "Nothing accepts connections at {0}. Check the host and port in 'ksm.baseUrl' (now '{1}'), or start the service (the local emulator: npm run emulator).",
        ctx.host ?? ctx.baseUrl,
        ctx.baseUrl,
      ),
    oneClick: () => ({
      problem: l10n.t('Nothing accepts connections at the KSM service address.'),
      action: CHECK_CONNECTION(),
      hint: l10n.t("Start the service (the local emulator: npm run emulator), check the address in 'ksm.baseUrl', or run 'KSM: Check Connection'."),
    }),
  },
  unreachable: {
    advice: (ctx) =>
      ctx.proxy
        ? l10n.t('The network path to {0} is broken. Check the network or VPN and the proxy {1}.', ctx.host ?? ctx.baseUrl, ctx.proxy)
        : l10n.t("The network path to {0} is broken. Check the network or VPN, and whether you need a proxy ('http.proxy').", ctx.host ?? ctx.baseUrl),
    // Address, proxy, certificate or a server that is not the API: Check Connection names which, and its fix.
    oneClick: () => ({ problem: l10n.t('The KSM service could not be reached or answered unexpectedly.'), action: CHECK_CONNECTION() }),
  },
  proxy: {
    advice: (ctx) =>
      l10n.t("The proxy {0} did not let the request through. Check 'http.proxy' (or HTTPS_PROXY/HTTP_PROXY), or add the service's host to 'http.noProxy' if it is reached directly.", ctx.proxy ?? ''),
  },
  certificate: {
    advice: (ctx) =>
      ctx.caBundle
        ? l10n.t(
            "The service's TLS certificate is not trusted. If your company inspects TLS, save its root CA as a PEM file and set 'ksm.network.caBundle' to it (now '{0}': it does not hold the right CA); turn off 'http.proxyStrictSSL' only for a test.",
            ctx.caBundle,
          )
        : l10n.t(
            "The service's TLS certificate is not trusted. If your company inspects TLS, save its root CA as a PEM file and set 'ksm.network.caBundle' to it; turn off 'http.proxyStrictSSL' only for a test.",
          ),
  },
  timeout: { advice: () => l10n.t("The service did not answer in time. Check the network and proxy, or raise 'ksm.request.timeoutSeconds'.") },
  'not-the-api': {
    advice: (ctx) =>
      l10n.t(
        "The address answers, but not as the KSM API (a sign-in page, a proxy or another server?). Check 'ksm.baseUrl' (now '{0}'): it must be the API's root, without a path such as /v3 or /ksm.",
        ctx.baseUrl,
      ),
  },
  'no-key': {
    advice: () => l10n.t("Set your API key with 'KSM: Set API Key'."),
    // No key stored is a set-up problem too, but settings cannot fix it: the key lives in secret storage.
    oneClick: () => ({ problem: l10n.t('No KSM API key is set.'), action: SET_API_KEY() }),
  },
  key: {
    advice: () => l10n.t("The service refused the API key. Set the right key with 'KSM: Set API Key' (keys are per service: an emulator key does not work on the real service)."),
    oneClick: () => ({ problem: l10n.t('The KSM service rejected the API key.'), action: SET_API_KEY() }),
  },
  'user-id': {
    advice: (ctx) =>
      ctx.userId
        ? l10n.t("Your personal volume is {<your user id>}, and '{0}' is not yours for this key. Set 'ksm.userId' to the user id of this API key.", ctx.userId)
        : l10n.t("Set 'ksm.userId' to your user id: your personal volume is {<user id>}."),
  },
  volume: {
    advice: (ctx) =>
      l10n.t(
        "Check the volume name '{0}' in 'ksm.volumes.list': letters, digits, '.', '_' and '-', starting with a letter or digit; ask the administrators for access to a volume you may not read.",
        ctx.volume ?? '',
      ),
  },
  model: {
    advice: (ctx) =>
      ctx.model
        ? l10n.t("The service does not know the model '{0}'. Put model ids the service offers in 'ksm.chat.models' (the first is the default, or set 'ksm.chat.defaultModel').", ctx.model)
        : l10n.t("Set 'ksm.chat.models' to the chat model ids the service offers."),
  },
  agent: { advice: (ctx) => l10n.t("Check 'ksm.agent.id' (now '{0}') and 'ksm.agent.model'.", ctx.agentId ?? '') },
  'rate-limited': { advice: () => l10n.t('The service is limiting requests. Wait a minute and check again.') },
  server: { advice: () => l10n.t("The service itself has a problem. Try again later; if it persists, send this report (Copy Report) to the service's administrators.") },
  stream: { advice: () => l10n.t("The answer stream did not end as expected. Send this report (Copy Report) to the service's administrators; the shapes below show what arrived.") },
  'not-connected': {
    advice: () => notConnectedMessage(),
    oneClick: () => ({ problem: l10n.t('KSM Assistant is not connected to a service.'), action: SET_API_KEY(), alternatives: [CONNECT_EMULATOR()] }),
  },
  'not-configured': {
    advice: () => l10n.t("Check the KSM settings ('ksm.baseUrl', 'ksm.network.caBundle')."),
    oneClick: () => ({ problem: l10n.t('The KSM service is not configured.'), action: OPEN_SETTINGS() }),
  },
  other: { advice: () => reportToAdmins() },
};

/** What to change for `problem`, phrased with what is known (Check Connection's report). */
export function fixFor(problem: Problem, ctx: FixContext): string {
  return PROBLEMS[problem].advice(ctx);
}

/** The problem behind an error when nothing else is known (no step, no settings), for the one-click fix. */
function problemOf(error: unknown): Problem | undefined {
  if (error instanceof NotConnectedError) return 'not-connected';
  if (!isKsmError(error)) return undefined;
  if (error instanceof NetworkError && error.code === 'ECONNREFUSED') return 'refused';
  if (error.kind === 'auth') return 'key';
  if (error.kind === 'config') return error instanceof NoApiKeyError ? 'no-key' : 'not-configured';
  if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'bad-response') return 'unreachable';
  return undefined;
}

/** The fix for an error the user can repair in one click, or undefined (retry, wait, report). */
export function errorFix(error: unknown): ErrorFix | undefined {
  const problem = problemOf(error);
  return problem ? PROBLEMS[problem].oneClick?.() : undefined;
}

/**
 * The error's first line as the user reads it, with the fix sentence of the table added when
 * the error's own text does not carry one (a refused connection). Never holds the key: the
 * caller passes text src/api already redacted. The line quotes the service's own words (an
 * error body's message), so it passes `shownInMessage()`: a notification shows
 * `[Retry](command:…)` from a hostile answer as text, not as a link that runs a command.
 */
export function messageWithFix(error: unknown): string {
  const line = shownInMessage(errorFirstLine(error));
  const hint = errorFix(error)?.hint;
  return hint && !line.includes(hint) ? `${line} ${hint}` : line;
}
