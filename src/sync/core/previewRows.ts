// The file rows of a sync's preview (a quick pick, sync/vscode/syncPreview.ts): one per
// conflict, ignored record entry, upload, delete, kept and untracked remote file, and skipped
// file. No `vscode` import, so what each row says is unit-tested. Every name in a row is
// someone else's (a remote file's name from the listing, a path in a cloned repository, an
// entry of the sync record): shown through shownWithIcons, since a quick pick draws `$(…)` as
// an icon and a name must not pass for one of the preview's own rows.
import { relative } from 'node:path';
import * as l10n from '@vscode/l10n';
import { shownWithIcons } from '../../common/core/untrustedText';
import type { SyncPlan } from './plan';

export interface PreviewRow {
  label: string;
  description?: string;
  detail?: string;
}

/** The rows below the preview's Apply and Cancel, in the order they are shown. */
export function previewFileRows(plan: SyncPlan, ownershipChoice: boolean): PreviewRow[] {
  const name = (text: string) => shownWithIcons(text);
  const rows: PreviewRow[] = [];
  if (plan.manifest.state !== 'ok') {
    rows.push({
      label: l10n.t('$(info) No sync record yet'),
      detail: ownershipChoice
        ? l10n.t('Some files of the folder already have a same-name file in the volume that this folder never recorded: choose what they are. Nothing is deleted for removed files this run.')
        : l10n.t('Nothing is deleted for removed files this run.'),
    });
  }
  for (const c of plan.conflicts)
    rows.push({ label: l10n.t('$(warning) {0}', name(c.rel)), description: l10n.t('same name as {0} file(s) in the volume not recorded by this folder', c.remote.length) });
  for (const claim of plan.ignoredClaims) rows.push({ label: l10n.t('$(warning) Ignored sync record entry'), detail: name(claim) });
  for (const u of plan.uploads) {
    rows.push(
      u.replaces
        ? { label: l10n.t('$(replace) {0}', name(u.rel)), description: l10n.t('changed: replace') }
        : { label: l10n.t('$(add) {0}', name(u.rel)), description: u.renamedFrom ? l10n.t('new (renamed from {0})', name(u.renamedFrom)) : l10n.t('new: upload') },
    );
  }
  for (const d of plan.deletes) {
    rows.push({
      label: l10n.t('$(trash) {0}', name(d.remoteName)),
      description: d.reason === 'replaced' ? l10n.t('older copy of a replaced file') : d.reason === 'duplicate' ? l10n.t('extra copy') : l10n.t('removed locally: delete from the volume'),
    });
  }
  for (const rel of plan.keptRemote) rows.push({ label: l10n.t('$(circle-slash) {0}', name(rel)), description: l10n.t('removed locally, kept in the volume (deletion is off)') });
  for (const f of plan.untracked) rows.push({ label: l10n.t('$(question) {0}', name(f.filename)), description: l10n.t('in the volume, not from this folder: left alone') });
  for (const s of plan.skipped) rows.push({ label: l10n.t('$(eye-closed) {0}', name(relative(plan.folder, s.path) || s.path)), description: name(s.reason) });
  return rows;
}
