// The webview is untrusted (a compromised renderer, or a bug, can post anything): every
// message is checked for shape, type and size here before any handler sees it. Anything
// that does not match exactly is dropped by the caller with a log line. Checks that need
// state (does this turn or citation exist?) happen in the session, against what it knows.
import { CHAT_PARAMETER_NAMES, parametersProblem } from '../../api/chatParameterLimits';
import { TURN_ID_PATTERN, CONVERSATION_ID_PATTERN, CODE_CONTEXT_ID_PATTERN, MAX_TEXT_CHARS } from '../core/conversationModel';
import { modelIdProblem } from '../core/modelChoices';
import type { ChatParameters, WebviewMessageType, WebviewToHost } from '../protocol';

export const MAX_CODE_CHARS = 1_000_000;
const MAX_LINK_CHARS = 8_192;
const MAX_ID_CHARS = 256;
const MAX_LANGUAGE_CHARS = 64;

type Raw = Record<string, unknown>;

/**
 * One validator per webview message type. The map is typed over the protocol's union, so a
 * message type added to protocol.ts without a validator here fails to compile.
 */
const validators = {
  ready: (m) => (onlyKeys(m, []) ? { type: 'ready' } : undefined),
  stop: (m) => (onlyKeys(m, []) ? { type: 'stop' } : undefined),
  newConversation: (m) => (onlyKeys(m, []) ? { type: 'newConversation' } : undefined),
  send: (m) => (onlyKeys(m, ['text']) && isText(m.text, MAX_TEXT_CHARS) && m.text.trim() !== '' ? { type: 'send', text: m.text } : undefined),
  retry: (m) => (onlyKeys(m, ['turnId']) && isMatch(m.turnId, TURN_ID_PATTERN) ? { type: 'retry', turnId: m.turnId } : undefined),
  continue: (m) => (onlyKeys(m, ['turnId']) && isMatch(m.turnId, TURN_ID_PATTERN) ? { type: 'continue', turnId: m.turnId } : undefined),
  regenerate: (m) => (onlyKeys(m, ['turnId']) && isMatch(m.turnId, TURN_ID_PATTERN) ? { type: 'regenerate', turnId: m.turnId } : undefined),
  copyAnswer: (m) => (onlyKeys(m, ['turnId']) && isMatch(m.turnId, TURN_ID_PATTERN) ? { type: 'copyAnswer', turnId: m.turnId } : undefined),
  editQuestion: (m) =>
    onlyKeys(m, ['turnId', 'text']) && isMatch(m.turnId, TURN_ID_PATTERN) && isText(m.text, MAX_TEXT_CHARS) && m.text.trim() !== ''
      ? { type: 'editQuestion', turnId: m.turnId, text: m.text }
      : undefined,
  pickModel: (m) => (onlyKeys(m, []) ? { type: 'pickModel' } : undefined),
  readLastAnswer: (m) => (onlyKeys(m, []) ? { type: 'readLastAnswer' } : undefined),
  setMode: (m) => (onlyKeys(m, ['mode']) && (m.mode === 'chat' || m.mode === 'agent') ? { type: 'setMode', mode: m.mode } : undefined),
  setModel: (m) => (onlyKeys(m, ['model']) && isModelId(m.model) ? { type: 'setModel', model: m.model.trim() } : undefined),
  setThinking: (m) => (onlyKeys(m, ['enabled']) && typeof m.enabled === 'boolean' ? { type: 'setThinking', enabled: m.enabled } : undefined),
  setParameters: (m) => {
    const parameters = onlyKeys(m, ['parameters']) ? parseParameters(m.parameters) : undefined;
    return parameters ? { type: 'setParameters', parameters } : undefined;
  },
  removeAttachment: (m) => (onlyKeys(m, ['fileId']) && isId(m.fileId) ? { type: 'removeAttachment', fileId: m.fileId } : undefined),
  openConversation: (m) => (onlyKeys(m, ['id']) && isMatch(m.id, CONVERSATION_ID_PATTERN) ? { type: 'openConversation', id: m.id } : undefined),
  copyCode: (m) => (onlyKeys(m, ['code']) && isText(m.code, MAX_CODE_CHARS) ? { type: 'copyCode', code: m.code } : undefined),
  insertCode: (m) => (onlyKeys(m, ['code']) && isText(m.code, MAX_CODE_CHARS) ? { type: 'insertCode', code: m.code } : undefined),
  newFileWithCode: (m) => {
    if (!onlyKeys(m, ['code', 'language']) || !isText(m.code, MAX_CODE_CHARS)) return undefined;
    if (m.language === undefined) return { type: 'newFileWithCode', code: m.code };
    return isMatch(m.language, /^[A-Za-z0-9][A-Za-z0-9_.+#-]*$/) && m.language.length <= MAX_LANGUAGE_CHARS ? { type: 'newFileWithCode', code: m.code, language: m.language } : undefined;
  },
  openLink: (m) => (onlyKeys(m, ['href']) && isText(m.href, MAX_LINK_CHARS) ? { type: 'openLink', href: m.href } : undefined),
  removeCode: (m) => (onlyKeys(m, ['id']) && isMatch(m.id, CODE_CONTEXT_ID_PATTERN) ? { type: 'removeCode', id: m.id } : undefined),
  chooseContextVolumes: (m) => (onlyKeys(m, []) ? { type: 'chooseContextVolumes' } : undefined),
  chooseContextFiles: (m) => (onlyKeys(m, []) ? { type: 'chooseContextFiles' } : undefined),
  removeContextFile: (m) => (onlyKeys(m, ['fileId']) && isId(m.fileId) ? { type: 'removeContextFile', fileId: m.fileId } : undefined),
  removeContextVolume: (m) => (onlyKeys(m, ['volume']) && isId(m.volume) ? { type: 'removeContextVolume', volume: m.volume } : undefined),
  // Which answer and which of its markers: the session checks that the answer cited it.
  openCitation: (m) => (onlyKeys(m, ['turnId', 'marker']) && isMatch(m.turnId, TURN_ID_PATTERN) && isMarker(m.marker) ? { type: 'openCitation', turnId: m.turnId, marker: m.marker } : undefined),
  connect: (m) => (onlyKeys(m, ['action']) && (m.action === 'setApiKey' || m.action === 'useLocalEmulator') ? { type: 'connect', action: m.action } : undefined),
} satisfies { [K in WebviewMessageType]: (m: Raw) => Extract<WebviewToHost, { type: K }> | undefined };

/** The message if it is well formed, else undefined. Extra fields make it invalid. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const m = raw as Raw;
  if (typeof m.type !== 'string' || !Object.hasOwn(validators, m.type)) return undefined;
  const validate: (m: Raw) => WebviewToHost | undefined = validators[m.type as WebviewMessageType];
  return validate(m);
}

/**
 * Parameters within the limits of the one parameter table (src/api/chatParameterLimits.ts,
 * which the form and the client check too); any other key or value fails.
 */
export function parseParameters(raw: unknown): ChatParameters | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const p = raw as Raw;
  if (!onlyKeys(p, CHAT_PARAMETER_NAMES)) return undefined;
  if (parametersProblem(p)) return undefined;
  const out: Record<string, unknown> = {};
  for (const name of CHAT_PARAMETER_NAMES) if (p[name] !== undefined) out[name] = structuredClone(p[name]);
  // Every key is a parameter and every value passed its rule: the record is a ChatParameters.
  return out as ChatParameters;
}

function onlyKeys(m: Raw, keys: string[]): boolean {
  return Object.keys(m).every((k) => k === 'type' || keys.includes(k));
}

function isText(value: unknown, maxChars: number): value is string {
  return typeof value === 'string' && value.length <= maxChars;
}

function isMatch(value: unknown, pattern: RegExp): value is string {
  return typeof value === 'string' && value.length <= MAX_ID_CHARS && pattern.test(value);
}

/** Opaque ids from the service (file uuids, volume names): bounded, printable, no control characters. */
function isId(value: unknown): value is string {
  // Control characters are exactly what this check looks for.
  // eslint-disable-next-line no-control-regex
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_CHARS && !/[\u0000-\u001f\u007f]/.test(value);
}

/** A citation marker [n]: a small positive integer. */
function isMarker(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 10_000;
}

function isModelId(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_ID_CHARS && modelIdProblem(value) === undefined;
}

/**
 * The URL to hand to the system browser, or undefined. Only absolute http(s) URLs leave
 * the webview: `command:`, `file:`, `vscode:` and the like would run or open things.
 */
export function safeExternalUrl(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url.toString();
}
