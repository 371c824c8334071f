// What the upload questions remember between uploads and how that orders them: volumes
// used recently come first; the processing choice (do_chunking) is remembered per volume.
// No `vscode` import: the stored values are plain data read back from globalState, which
// another version of the extension may have written, so they are checked, not trusted.
import type { DoChunking } from '../../api/types';
import { shownVolumes, type VolumeTarget } from '../../common/core/volumeTargets';
import { isString, storedList, storedRecord, withRecent } from '../../common/core/storedState';

/** How many recently used volumes are remembered. */
export const RECENT_VOLUMES_KEPT = 10;

export interface VolumeChoice extends VolumeTarget {
  recent: boolean;
}

/**
 * The volumes an upload offers: the recently used ones that are still in the view, most
 * recent first, then the personal volume, then the named volumes in settings order.
 */
export function volumeChoices(personal: string | undefined, named: readonly string[], recentlyUsed: unknown): VolumeChoice[] {
  const shown = shownVolumes(personal, named);
  const recent = [...new Set(storedList(recentlyUsed, isString)?.known ?? [])].filter((v) => shown.some((s) => s.volume === v));
  const ordered = [...recent.map((v) => shown.find((s) => s.volume === v)!), ...shown.filter((s) => !recent.includes(s.volume))];
  return ordered.map((target) => ({ ...target, recent: recent.includes(target.volume) }));
}

/**
 * The recent list after an upload to `volume`: it moves to the front, the oldest drop off; entries
 * that are not names (a later version's) are written back unchanged after them. Undefined when
 * what is stored is not a list: leave it as it is (storedState.ts).
 */
export function withRecentVolume(recentlyUsed: unknown, volume: string): unknown[] | undefined {
  return withRecent(recentlyUsed, volume, RECENT_VOLUMES_KEPT, isString);
}

/** The processing last chosen for `volume`, if one was remembered. */
export function rememberedChunking(remembered: unknown, volume: string): DoChunking | undefined {
  const value = isRecord(remembered) && Object.hasOwn(remembered, volume) ? remembered[volume] : undefined;
  return isDoChunking(value) ? value : undefined;
}

/**
 * The remembered map after choosing `value` for `volume`; every other entry is written back as
 * stored, one this version does not read (a later version's processing) included. Undefined
 * when what is stored is not a map: leave it as it is (storedState.ts).
 */
export function withChunking(remembered: unknown, volume: string, value: DoChunking): Record<string, unknown> | undefined {
  const stored = storedRecord(remembered);
  return stored && { ...stored, [volume]: value };
}

/**
 * The processing an upload uses without asking: the one remembered for `volume`, unless
 * the user wants to be asked every time (ksm.upload.askProcessing) or chose to change it.
 * Undefined = ask.
 */
export function processingWithoutAsking(remembered: unknown, volume: string, askEveryTime: boolean): DoChunking | undefined {
  return askEveryTime ? undefined : rememberedChunking(remembered, volume);
}

/** Processing options in the order offered: the current one first, then 1, 2, 0. */
export function chunkingOrder(current: DoChunking): DoChunking[] {
  return [current, ...([1, 2, 0] as const).filter((v) => v !== current)];
}

function isDoChunking(value: unknown): value is DoChunking {
  return value === 0 || value === 1 || value === 2;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
