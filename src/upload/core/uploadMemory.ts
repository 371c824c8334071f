// What the upload questions remember between uploads and how that orders them: volumes
// used recently come first; the processing choice (do_chunking) is remembered per volume.
// No `vscode` import: the stored values are plain data read back from globalState, which
// another version of the extension may have written, so they are checked, not trusted.
import type { DoChunking } from '../../api/types';
import { shownVolumes, type VolumeTarget } from '../../common/core/volumeTargets';

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
  const recent = [...new Set(stringsIn(recentlyUsed))].filter((v) => shown.some((s) => s.volume === v));
  const ordered = [...recent.map((v) => shown.find((s) => s.volume === v)!), ...shown.filter((s) => !recent.includes(s.volume))];
  return ordered.map((target) => ({ ...target, recent: recent.includes(target.volume) }));
}

/** The recent list after an upload to `volume`: it moves to the front, the oldest drop off. */
export function withRecentVolume(recentlyUsed: unknown, volume: string): string[] {
  return [volume, ...stringsIn(recentlyUsed).filter((v) => v !== volume)].slice(0, RECENT_VOLUMES_KEPT);
}

/** The processing last chosen for `volume`, if one was remembered. */
export function rememberedChunking(remembered: unknown, volume: string): DoChunking | undefined {
  const value = isRecord(remembered) && Object.hasOwn(remembered, volume) ? remembered[volume] : undefined;
  return isDoChunking(value) ? value : undefined;
}

/** The remembered map after choosing `value` for `volume` (entries that are not choices are dropped). */
export function withChunking(remembered: unknown, volume: string, value: DoChunking): Record<string, DoChunking> {
  const kept: Record<string, DoChunking> = {};
  if (isRecord(remembered)) for (const [v, c] of Object.entries(remembered)) if (isDoChunking(c)) kept[v] = c;
  kept[volume] = value;
  return kept;
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

function stringsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
