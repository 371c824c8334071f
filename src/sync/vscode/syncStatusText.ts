// What the sync status bar item says for the pairings' states (issue 26, rough edge 4): worst
// first; "review" while a preview waits for Apply (nothing is being synced then), and after a
// window reload when the folder was last synced rather than a bare "sync". No `vscode`
// import, so it is tested under plain mocha.

import * as l10n from '@vscode/l10n';

export type SyncState =
  /** Not compared in this window yet; `lastSynced`: when this folder was last applied (its manifest), if ever. */
  | { kind: 'idle'; lastSynced?: number }
  | { kind: 'inSync' }
  /** `waiting`: how many of them a watch run left out, their last copy sent less than `intervalMs` ago (the runner's WatchLimits.fileIntervalMs). */
  | { kind: 'pending'; count: number; waiting?: { files: number; intervalMs: number } }
  /** The preview is open and waits for Apply: nothing is sent until then. */
  | { kind: 'review'; count: number }
  | { kind: 'syncing' }
  | { kind: 'error'; message: string };

export interface StatusText {
  text: string;
  error: boolean;
}

export function syncStatusText(states: readonly SyncState[], formatTime: (epochMs: number) => string = defaultTime): StatusText {
  const count = (kind: 'pending' | 'review') => states.reduce((sum, s) => sum + (s.kind === kind ? s.count : 0), 0);
  if (states.some((s) => s.kind === 'syncing')) return { text: l10n.t('$(sync~spin) KSM: syncing'), error: false };
  if (states.some((s) => s.kind === 'error')) return { text: l10n.t('$(error) KSM: sync error'), error: true };
  if (states.some((s) => s.kind === 'review')) return { text: l10n.t('$(eye) KSM: review sync ({0})', count('review')), error: false };
  const pending = count('pending');
  if (pending) return { text: l10n.t('$(cloud-upload) KSM: {0} pending', pending), error: false };
  if (states.length && states.every((s) => s.kind === 'inSync')) return { text: l10n.t('$(check) KSM: in sync'), error: false };
  const last = Math.max(...states.map((s) => (s.kind === 'idle' && s.lastSynced) || 0));
  return { text: last > 0 ? l10n.t('$(sync) KSM: last synced {0}', formatTime(last)) : l10n.t('$(sync) KSM: not synced yet'), error: false };
}

/** One pairing's state in words, for the tooltip and the screen reader. */
export function describeSyncState(state: SyncState, formatTime: (epochMs: number) => string = defaultTime): string {
  switch (state.kind) {
    case 'idle':
      return state.lastSynced ? l10n.t('last synced {0}; not compared since this window opened', formatTime(state.lastSynced)) : l10n.t('not synced yet');
    case 'inSync':
      return l10n.t('in sync');
    case 'pending':
      return state.waiting
        ? l10n.t('{0} pending; {1} changed again soon after being sent: watch sends a file at most once every {2} s', state.count, state.waiting.files, state.waiting.intervalMs / 1000)
        : l10n.t('{0} pending', state.count);
    case 'review':
      return state.count === 1 ? l10n.t('1 change waiting in the preview for Apply') : l10n.t('{0} changes waiting in the preview for Apply', state.count);
    case 'syncing':
      return l10n.t('syncing…');
    case 'error':
      return l10n.t('error: {0}', state.message);
  }
}

function defaultTime(epochMs: number): string {
  return new Date(epochMs).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}
