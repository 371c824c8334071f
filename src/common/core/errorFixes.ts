// Error → the one-click fix, in one place: the command error wrapper's buttons, the chat's
// notification after a failed answer and the Volumes tree's clickable error row all ask
// here, so a problem gets the same fix everywhere (before, three copies disagreed: a
// missing key offered "Open Settings", and settings opened two different ways). The error's
// own text already says what to do (src/api writes it so); this adds the button.
// vscode-free: it names commands by their typed ids.
import { isKsmError, NO_API_KEY_MESSAGE } from '../../api/errors';
import { COMMAND, type CommandId } from './contributionIds';

export interface ErrorFix {
  /** One line saying what is wrong, for a notification whose button applies the fix. */
  problem: string;
  /** The button or click that fixes it. */
  action: { title: string; command: CommandId };
}

const SET_API_KEY: ErrorFix['action'] = { title: 'Set API Key', command: COMMAND.setApiKey };
const OPEN_SETTINGS: ErrorFix['action'] = { title: 'Open Settings', command: COMMAND.openSettings };
const CHECK_CONNECTION: ErrorFix['action'] = { title: 'Check Connection', command: COMMAND.checkConnection };

/** The fix for an error the user can repair in one click, or undefined (retry, wait, report). */
export function errorFix(error: unknown): ErrorFix | undefined {
  if (!isKsmError(error)) return undefined;
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
