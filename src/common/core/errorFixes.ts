// Error → the one-click fix, in one place: the command error wrapper's buttons, the chat's
// notification after a failed answer and the Volumes tree's clickable error row all ask
// here, so a problem gets the same fix everywhere (before, three copies disagreed: a
// missing key offered "Open Settings", and settings opened two different ways). The error's
// own text already says what to do (src/api writes it so); this adds the button.
// vscode-free: it names commands by their typed ids.
import { errorFirstLine, isKsmError, NetworkError, NO_API_KEY_MESSAGE } from '../../api/errors';
import { COMMAND, type CommandId } from './contributionIds';

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

const SET_API_KEY: ErrorFix['action'] = { title: 'Set API Key', command: COMMAND.setApiKey };
const OPEN_SETTINGS: ErrorFix['action'] = { title: 'Open Settings', command: COMMAND.openSettings };
const CHECK_CONNECTION: ErrorFix['action'] = { title: 'Check Connection', command: COMMAND.checkConnection };
const CONNECT_EMULATOR: ErrorFix['action'] = { title: 'Connect to Local Emulator', command: COMMAND.useLocalEmulator };

/** Said when a question is sent, or a call made, before any service is set up (no address or no key). */
export const NOT_CONNECTED_MESSAGE =
  'Not connected to a KSM service. Set the API key of your service, or connect to the local emulator, then retry.';

/** The error a front end raises for "not connected"; `errorFix` offers both ways to connect for it. */
export class NotConnectedError extends Error {
  constructor() {
    super(NOT_CONNECTED_MESSAGE);
    this.name = 'NotConnectedError';
  }
}

const REFUSED_FIX: ErrorFix = {
  problem: 'Nothing accepts connections at the KSM service address.',
  action: CHECK_CONNECTION,
  hint: "Start the service (the local emulator: npm run emulator), check the address in 'ksm.baseUrl', or run 'KSM: Check Connection'.",
};

/** The fix for an error the user can repair in one click, or undefined (retry, wait, report). */
export function errorFix(error: unknown): ErrorFix | undefined {
  if (error instanceof NotConnectedError) {
    return { problem: 'KSM Assistant is not connected to a service.', action: SET_API_KEY, alternatives: [CONNECT_EMULATOR] };
  }
  if (!isKsmError(error)) return undefined;
  if (error instanceof NetworkError && error.code === 'ECONNREFUSED') return REFUSED_FIX;
  if (error.kind === 'auth') {
    return { problem: 'The KSM service rejected the API key.', action: SET_API_KEY };
  }
  if (error.kind === 'config') {
    // No key stored is a set-up problem too, but settings cannot fix it: the key lives in secret storage.
    if (error.message === NO_API_KEY_MESSAGE) {
      return { problem: 'No KSM API key is set.', action: SET_API_KEY };
    }
    return { problem: 'The KSM service is not configured.', action: OPEN_SETTINGS };
  }
  // Address, proxy, certificate or a server that is not the API: Check Connection names which, and its fix.
  if (error.kind === 'network' || error.kind === 'timeout' || error.kind === 'bad-response') {
    return { problem: 'The KSM service could not be reached or answered unexpectedly.', action: CHECK_CONNECTION };
  }
  return undefined;
}

/**
 * The error's first line as the user reads it, with the fix sentence of the table added when
 * the error's own text does not carry one (a refused connection). Never holds the key: the
 * caller passes text src/api already redacted.
 */
export function messageWithFix(error: unknown): string {
  const line = errorFirstLine(error);
  const hint = errorFix(error)?.hint;
  return hint && !line.includes(hint) ? `${line} ${hint}` : line;
}
