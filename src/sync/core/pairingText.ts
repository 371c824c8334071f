// How a sync pairing (a folder and a volume) is named to people, without `vscode`. A pairing
// may come from the workspace's settings, that is from a cloned repository, and its folder
// and volume are then the repository's words: in the approval picker (a quick pick, which
// draws `$(…)` as an icon) and in notifications (where `[..](command:..)` is a link that runs
// a command) they are shown as text, escaped and bounded, so the consent the user gives
// names exactly the folder and the volume it lets sync write to.
import * as l10n from '@vscode/l10n';
import { shownInMessage, shownInput, shownWithIcons } from '../../common/core/untrustedText';

export interface NamedPairing {
  folder: string;
  volume: string;
  deleteRemoved?: boolean;
  watch?: boolean;
}

/** Longest folder or volume a label shows whole (a volume name has at most 128 characters, D5). */
const NAME_CHARS = 130;

/** One row of the picker that approves the repository's pairings on this machine. */
export function approvalItem(p: NamedPairing): { label: string; description: string; detail: string } {
  return {
    label: l10n.t('$(repo) {0} → {1}', shownWithIcons(p.folder, NAME_CHARS), shownWithIcons(p.volume, NAME_CHARS)),
    description: l10n.t('from the repository'),
    detail: [
      l10n.t("uploads the folder's files to the volume '{0}'", shownWithIcons(p.volume, NAME_CHARS)),
      p.deleteRemoved ? l10n.t('DELETES files removed from the folder') : undefined,
      p.watch ? l10n.t('syncs after every save') : undefined,
    ]
      .filter(Boolean)
      .join(' · '),
  };
}

/** The notification naming the pairings that were refused, each with its reason. */
export function refusedPairingsMessage(refused: ReadonlyArray<{ pairing: NamedPairing; reason: string }>): string {
  const named = (text: string) => shownInput(text, NAME_CHARS);
  return shownInMessage(l10n.t('Sync refused: {0}.', refused.map((r) => `'${named(r.pairing.folder)}' → ${named(r.pairing.volume)}: ${shownInput(r.reason, 300)}`).join('; ')));
}

/**
 * How messages, progress titles and the log name a pairing's folder: its path as written in the
 * pairing (the workspace folder's name for `.`), escaped and bounded as a notification needs.
 */
export function pairingFolderLabel(folder: string, folderName: string): string {
  return shownInMessage(shownInput(folder === '.' ? folderName : folder, NAME_CHARS));
}
