// The preview of a sync: a QuickPick (keyboard first, readable in a 170 px side bar since it
// opens at the top of the window) whose title has the counts and whose rows are Apply,
// Cancel and every planned file. Deleting more than the guard's share of the volume asks
// once more, in a modal dialog that names the numbers.
import * as vscode from 'vscode';
import { deletionShare, exceedsDeleteGuard, guardedDeletions, needsOwnershipChoice, planCounts, type SyncPlan } from '../core/plan';
import { shownVolume } from '../../common/vscode/settings';
import { previewFileRows } from '../core/previewRows';

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
  const files: Row[] = previewFileRows(plan, choice);
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
