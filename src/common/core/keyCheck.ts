// Set API Key checks the key it just saved with one cheap request (list one file of the
// personal volume) and says what happened: accepted, refused (with the fix), or could not be
// checked (offline, no address: with the reason). Before, "saved" showed while the tree said
// "refused" at the same moment. vscode-free, so the outcome mapping is tested under mocha.
import * as l10n from '@vscode/l10n';
import { isKsmError, NetworkError } from '../../api/errors';
import type { KsmService } from '../../api/service';
import { COMMAND } from './contributionIds';
import { errorFix, messageWithFix, type ErrorFix } from './errorFixes';
import { personalVolumeName } from './volumeTargets';

export const keyAccepted = (): string => l10n.t('The KSM service accepted the API key.');

export type KeyCheck =
  | { outcome: 'accepted'; message: string }
  | { outcome: 'refused'; message: string; fix: ErrorFix['action'] }
  /** `nothingListens`: the connection was refused (no service runs at the address). */
  | { outcome: 'unchecked'; message: string; fix?: ErrorFix['action']; nothingListens: boolean };

/** The volume whose one-file listing proves the key: the personal one, else a named one (a 404 still comes after authentication). */
export function keyCheckVolume(userId: string, volumes: readonly string[]): string {
  return personalVolumeName(userId) ?? volumes[0] ?? 'ksm-key-check';
}

export async function checkApiKey(service: KsmService, volume: string, signal?: AbortSignal): Promise<KeyCheck> {
  try {
    await service.listFiles({ volume, limit: 1 }, signal ? { signal } : undefined);
    return keyCheckOutcome(undefined, volume);
  } catch (error) {
    return keyCheckOutcome(error, volume);
  }
}

/** What the listing's result says about the key. The messages never hold the key: src/api redacts what the server echoes. */
export function keyCheckOutcome(error: unknown, volume: string): KeyCheck {
  if (error === undefined) return { outcome: 'accepted', message: keyAccepted() };
  if (!isKsmError(error)) return unchecked(error);
  switch (error.kind) {
    case 'auth':
      return {
        outcome: 'refused',
        message: l10n.t(
          'The KSM service refused this API key (it is stored, but nothing will work with it). Set the key of this service: an emulator key does not work on the real service, nor the other way round.',
        ),
        fix: { title: l10n.t('Set API Key'), command: COMMAND.setApiKey },
      };
    case 'permission':
      // Authenticated: the key is good, the volume is someone else's.
      return { outcome: 'accepted', message: l10n.t("The KSM service accepted the API key, but it may not read {0}: set 'ksm.userId' to the user id of this key.", volume) };
    case 'not-found':
    case 'invalid-request':
    case 'rate-limited':
      // The service answered after authenticating: the key passed.
      return { outcome: 'accepted', message: keyAccepted() };
    default:
      return unchecked(error);
  }
}

function unchecked(error: unknown): KeyCheck {
  const fix = errorFix(error)?.action;
  const reason = messageWithFix(error);
  const nothingListens = error instanceof NetworkError && error.code === 'ECONNREFUSED';
  return { outcome: 'unchecked', message: l10n.t('The API key is stored, but it could not be checked: {0}', reason), nothingListens, ...(fix ? { fix } : {}) };
}

/** What Connect to Local Emulator says after asking the emulator: what happened, not a guess that it needs starting. */
export function emulatorConnectReport(check: KeyCheck, baseUrl: string): { level: 'info' | 'warning' | 'error'; message: string; action?: ErrorFix['action'] } {
  switch (check.outcome) {
    case 'accepted':
      return { level: 'info', message: l10n.t('Connected to the local emulator at {0}: it answered and accepted the key.', baseUrl) };
    case 'refused':
      return { level: 'error', message: l10n.t('The emulator at {0} refused the stored key (was it started with --api-key?). Set that key.', baseUrl), action: check.fix };
    case 'unchecked':
      if (check.nothingListens) {
        return {
          level: 'warning',
          message: l10n.t('KSM Assistant now points at the local emulator at {0}, but nothing answers there. Start it with "npm run emulator", then run Check Connection.', baseUrl),
          action: { title: l10n.t('Check Connection'), command: COMMAND.checkConnection },
        };
      }
      return {
        level: 'warning',
        message: l10n.t(
          'KSM Assistant now points at the local emulator at {0}, but could not check it: {1}',
          baseUrl,
          withoutPrefix(check.message, l10n.t('The API key is stored, but it could not be checked: {0}', '')),
        ),
        ...(check.fix ? { action: check.fix } : {}),
      };
  }
}

function withoutPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}
