// The preview of a sync: a QuickPick (keyboard first, readable in a 170 px side bar since it
// opens at the top of the window) whose title has the counts and whose rows are Apply,
// Cancel and every planned file. Deleting more than the guard's share of the volume asks
// once more, in a modal dialog that names the numbers.
import { relative } from 'node:path';
import * as vscode from 'vscode';
import { deletionShare, exceedsDeleteGuard, guardedDeletions, needsOwnershipChoice, planCounts, type SyncPlan } from '../core/plan';
import { shownVolume } from '../../common/vscode/settings';

export type PreviewAnswer = 'apply' | 'cancel' | 'adopt' | 'keepOthers';

interface Row extends vscode.QuickPickItem {
  action?: PreviewAnswer;
}

export function planTitle(plan: SyncPlan, folderLabel: string): string {
  const c = planCounts(plan);
  return vscode.l10n.t('Sync {0} → {1}: {2} new · {3} changed · {4} to delete · {5} unchanged', folderLabel, shownVolume(plan.volume), c.upload, c.replace, c.delete, c.unchanged);
}

export async function showPreview(plan: SyncPlan, folderLabel: string): Promise<PreviewAnswer> {
  const choice = needsOwnershipChoice(plan);
  const rows: Row[] = choice
    ? [
        {
          label: vscode.l10n.t('$(replace) Replace Them (Adopt)'),
          description: vscode.l10n.t('they are older copies: replace {0}', plan.conflicts.length),
          action: 'adopt',
          alwaysShow: true,
        },
        { label: vscode.l10n.t('$(files) Keep Them (Upload Alongside)'), description: vscode.l10n.t('not ours: upload beside them'), action: 'keepOthers', alwaysShow: true },
        { label: vscode.l10n.t('$(close) Cancel'), description: vscode.l10n.t('change nothing'), action: 'cancel', alwaysShow: true },
      ]
    : [
        { label: vscode.l10n.t('$(check) Apply'), description: applyDescription(plan), action: 'apply', alwaysShow: true },
        { label: vscode.l10n.t('$(close) Cancel'), description: vscode.l10n.t('change nothing'), action: 'cancel', alwaysShow: true },
      ];
  const files: Row[] = [];
  if (plan.manifest.state !== 'ok') {
    files.push({
      label: vscode.l10n.t('$(info) No sync record yet'),
      detail: choice
        ? vscode.l10n.t('Some files of the folder already have a same-name file in the volume that this folder never recorded: choose what they are. Nothing is deleted for removed files this run.')
        : vscode.l10n.t('Nothing is deleted for removed files this run.'),
    });
  }
  for (const c of plan.conflicts)
    files.push({ label: vscode.l10n.t('$(warning) {0}', c.rel), description: vscode.l10n.t('same name as {0} file(s) in the volume not recorded by this folder', c.remote.length) });
  for (const claim of plan.ignoredClaims) files.push({ label: vscode.l10n.t('$(warning) Ignored sync record entry'), detail: claim });
  for (const u of plan.uploads) {
    files.push(
      u.replaces
        ? { label: vscode.l10n.t('$(replace) {0}', u.rel), description: vscode.l10n.t('changed: replace') }
        : { label: vscode.l10n.t('$(add) {0}', u.rel), description: u.renamedFrom ? vscode.l10n.t('new (renamed from {0})', u.renamedFrom) : vscode.l10n.t('new: upload') },
    );
  }
  for (const d of plan.deletes) {
    files.push({
      label: vscode.l10n.t('$(trash) {0}', d.remoteName),
      description:
        d.reason === 'replaced' ? vscode.l10n.t('older copy of a replaced file') : d.reason === 'duplicate' ? vscode.l10n.t('extra copy') : vscode.l10n.t('removed locally: delete from the volume'),
    });
  }
  for (const rel of plan.keptRemote) files.push({ label: vscode.l10n.t('$(circle-slash) {0}', rel), description: vscode.l10n.t('removed locally, kept in the volume (deletion is off)') });
  for (const f of plan.untracked) files.push({ label: vscode.l10n.t('$(question) {0}', f.filename), description: vscode.l10n.t('in the volume, not from this folder: left alone') });
  for (const s of plan.skipped) files.push({ label: vscode.l10n.t('$(eye-closed) {0}', relative(plan.folder, s.path) || s.path), description: s.reason });
  if (files.length) rows.push({ label: vscode.l10n.t('Files'), kind: vscode.QuickPickItemKind.Separator }, ...files);

  for (;;) {
    const picked = await vscode.window.showQuickPick(rows, {
      title: planTitle(plan, folderLabel),
      placeHolder: vscode.l10n.t('Review the plan, then Apply or Cancel (Escape cancels)'),
      matchOnDescription: true,
      ignoreFocusOut: true,
    });
    if (!picked || picked.action === 'cancel') return 'cancel';
    if (picked.action) return picked.action;
    // A file row is information only: show the plan again.
  }
}

function applyDescription(plan: SyncPlan): string {
  const c = planCounts(plan);
  const parts = [c.upload && vscode.l10n.t('upload {0}', c.upload), c.replace && vscode.l10n.t('replace {0}', c.replace), c.delete && vscode.l10n.t('delete {0}', c.delete)].filter(Boolean);
  return parts.length ? parts.join(', ') : vscode.l10n.t('record the current state');
}

/** True when the deletions may go ahead: under the guard, or confirmed in a modal. */
export async function confirmDeletions(plan: SyncPlan, guardShare: number): Promise<boolean> {
  if (!exceedsDeleteGuard(plan, guardShare)) return true;
  const removing = guardedDeletions(plan);
  const button = vscode.l10n.t('Delete {0} Files', removing);
  const answer = await vscode.window.showWarningMessage(
    vscode.l10n.t(
      'This sync would delete {0} of the {1} files in {2} ({3}%, more than the {4}% allowed by ksm.sync.deleteGuardPercent).',
      removing,
      plan.remoteCount,
      shownVolume(plan.volume),
      Math.round(deletionShare(plan) * 100),
      Math.round(guardShare * 100),
    ),
    { modal: true, detail: vscode.l10n.t('Check that the folder is the right one and complete. The files are deleted from the volume for everyone.') },
    button,
  );
  return answer === button;
}
