// The sync feature's command handlers: Sync Folder to Volume…, Sync Now, the preview, Stop
// Syncing and Review Pairings from the Repository. Each waits for workspace trust and says
// so; a new pairing's folder is resolved to its real path before it is saved; where the
// pairing is saved (.vscode/settings.json or this machine only) is asked the first time.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { approvalItem, refusedPairingsMessage } from '../core/pairingText';
import { shown } from '../../common/core/untrustedText';
import { COMMAND } from '../../common/core/contributionIds';
import { WORKSPACE_STATE_KEY } from '../../common/core/storageKeys';
import { shownVolumes, type VolumeTarget } from '../../common/core/volumeTargets';
import { pickVolume } from '../../common/vscode/volumePicker';
import type { ExtensionServices } from '../../common/vscode/services';
import { personalVolume, settings, shownVolume } from '../../common/vscode/settings';
import type { SyncFeatureDeps, SyncRunners } from '../syncFeature';
import type { PairingRunner } from './syncRunner';
import { allPairings, approvePairings, removePairing, resolvePickedFolder, savePairing, storedFolder, type Pairing } from './syncSettings';

/** Answers given up front (tests, scripts); each one left out is asked. */
export interface PairingChoices {
  volume?: string;
  deleteRemoved?: boolean;
  watch?: boolean;
  /** Where the pairing is saved; asked (once per workspace) when left out. */
  target?: 'workspace' | 'local';
}

const waitsForTrust = () =>
  vscode.l10n.t('KSM folder sync waits for workspace trust: this workspace is open in Restricted Mode, so nothing is synced, watched or uploaded by sync. Trust the workspace to use it.');
const noPairing = () => vscode.l10n.t('No folder is paired with a volume yet. Right-click a folder in the Explorer and choose "Sync Folder to Volume…".');

export function registerSyncCommands(services: ExtensionServices, deps: SyncFeatureDeps, runners: SyncRunners): void {
  const state = services.context.workspaceState;

  /** False (after saying why, with a button to trust) in Restricted Mode. */
  const trusted = async (): Promise<boolean> => {
    if (vscode.workspace.isTrusted) return true;
    const manage = vscode.l10n.t('Manage Workspace Trust');
    const choice = await vscode.window.showWarningMessage(waitsForTrust(), manage);
    if (choice === manage) await vscode.commands.executeCommand('workbench.trust.manage');
    return false;
  };

  const pickRunner = async (title: string): Promise<PairingRunner | undefined> => {
    const all = runners.all();
    if (all.length <= 1) return all[0];
    const picked = await vscode.window.showQuickPick(
      all.map((r) => ({ label: r.label, description: `→ ${shownVolume(r.pairing.volume)}`, runner: r })),
      { title, placeHolder: vscode.l10n.t('Which folder?') },
    );
    return picked?.runner;
  };

  /** Says why nothing runs when there is no runner: pairings waiting for approval, or refused. */
  const explainNoRunner = async (): Promise<void> => {
    const { unapproved, refused } = runners.notices();
    if (unapproved.length) {
      const review = vscode.l10n.t('Review');
      const choice = await vscode.window.showWarningMessage(
        vscode.l10n.t("{0} sync pairing(s) come from this workspace's settings (the repository) and do nothing until you approve them.", unapproved.length),
        review,
      );
      if (choice === review) await vscode.commands.executeCommand(COMMAND.syncReviewPairings);
    } else if (refused.length) {
      void vscode.window.showWarningMessage(refusedPairingsMessage(refused));
    } else {
      void vscode.window.showInformationMessage(noPairing());
    }
  };

  services.registerCommand(COMMAND.syncFolder, async (uri?: vscode.Uri, _uris?: unknown, choices: PairingChoices = {}) => {
    if (!(await trusted())) return undefined;
    const folder = uri instanceof vscode.Uri && uri.scheme === 'file' ? uri : await pickFolder();
    if (!folder) return undefined;
    const real = resolvePickedFolder(folder.fsPath);
    if (!real.ok) return void vscode.window.showWarningMessage(vscode.l10n.t('This folder cannot be synced: {0}.', real.reason));
    const stored = storedFolder(real.path);
    if (!stored) return void vscode.window.showWarningMessage(vscode.l10n.t('Only a folder inside this workspace can be synced. Open its parent folder first.'));
    const existing = runners.all().find((r) => r.folderPath === real.path && (!choices.volume || r.pairing.volume === choices.volume));
    if (existing) return existing.sync();
    const volume = choices.volume ?? (await pickSyncVolume(shownVolumes(personalVolume(), settings.volumes())));
    if (!volume) return undefined;
    let deleteRemoved = choices.deleteRemoved;
    let watch = choices.watch;
    if (deleteRemoved === undefined || watch === undefined) {
      const options = await vscode.window.showQuickPick(
        [
          { label: vscode.l10n.t('Delete removed files'), description: vscode.l10n.t('files removed from the folder are deleted from the volume (after a preview)'), id: 'delete', picked: false },
          { label: vscode.l10n.t('Sync on save'), description: vscode.l10n.t('watch the folder and sync after changes'), id: 'watch', picked: false },
        ],
        {
          title: vscode.l10n.t('Sync {0} → {1}: options', basename(real.path), shownVolume(volume)),
          placeHolder: vscode.l10n.t('Tick what you want (Space), then Enter'),
          canPickMany: true,
          ignoreFocusOut: true,
        },
      );
      if (!options) return undefined;
      deleteRemoved ??= options.some((o) => o.id === 'delete');
      watch ??= options.some((o) => o.id === 'watch');
    }
    const target = choices.target ?? (await pairingTarget(state));
    if (!target) return undefined;
    const pairing: Pairing = { folder: stored, volume, deleteRemoved, watch };
    await savePairing(state, pairing, target);
    if (volume !== personalVolume() && !settings.volumes().includes(volume)) await deps.volumes.addVolumeToView(volume);
    runners.rebuild();
    return runners.get(pairing)?.sync({ preview: true });
  });

  services.registerCommand(COMMAND.syncNow, async () => {
    if (!(await trusted())) return undefined;
    const runner = await pickRunner(vscode.l10n.t('Sync Now'));
    if (!runner) return explainNoRunner();
    return runner.sync();
  });

  services.registerCommand(COMMAND.syncShowPreview, async () => {
    if (!(await trusted())) return undefined;
    const runner = await pickRunner(vscode.l10n.t('Preview Sync'));
    if (!runner) return explainNoRunner();
    return runner.sync({ preview: true });
  });

  services.registerCommand(COMMAND.syncStop, async () => {
    if (!(await trusted())) return;
    const runner = await pickRunner(vscode.l10n.t('Stop Syncing'));
    if (!runner) return;
    const sourced = allPairings(state).find((p) => p.folder === runner.pairing.folder && p.volume === runner.pairing.volume);
    if (sourced) await removePairing(state, sourced);
    runners.rebuild();
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} is no longer synced with {1}. Nothing was deleted.', runner.label, shownVolume(runner.pairing.volume)));
  });

  services.registerCommand(COMMAND.syncReviewPairings, async () => {
    if (!(await trusted())) return;
    const waiting = runners.notices().unapproved;
    if (waiting.length === 0) return void vscode.window.showInformationMessage(vscode.l10n.t('No sync pairing from the repository is waiting for approval.'));
    const picked = await vscode.window.showQuickPick(
      waiting.map((p) => ({ ...approvalItem(p), pairing: p })),
      {
        title: vscode.l10n.t("Sync pairings from this workspace's settings"),
        placeHolder: vscode.l10n.t('These came with the repository, not from you. Tick the ones to approve on this machine (Space), then Enter'),
        canPickMany: true,
        ignoreFocusOut: true,
      },
    );
    if (!picked?.length) return;
    if (
      !(await approvePairings(
        state,
        picked.map((p) => p.pairing),
      ))
    ) {
      services.log.warn('[sync] the approved pairings are stored in a form this version does not read (a later version wrote them): left unchanged, nothing approved.');
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'A later version of KSM Assistant stored the approved sync pairings in a form this version does not read. They are left unchanged and nothing was approved: update the extension to approve these pairings.',
        ),
      );
      return;
    }
    services.log.info(`[sync] approved ${picked.length} pairing(s) from the workspace settings: ${picked.map((p) => `${shown(p.pairing.folder)} → ${shown(p.pairing.volume)}`).join(', ')}.`);
    runners.rebuild();
  });
}

/** Where a new pairing is saved: asked the first time in a workspace, then remembered there. */
async function pairingTarget(state: vscode.Memento): Promise<'workspace' | 'local' | undefined> {
  const remembered = state.get(WORKSPACE_STATE_KEY.syncPairingTarget);
  if (remembered === 'workspace' || remembered === 'local') return remembered;
  const picked = await vscode.window.showQuickPick(
    [
      {
        label: vscode.l10n.t('$(file) {0}', vscode.l10n.t("Save in this workspace's settings")),
        description: vscode.l10n.t('.vscode/settings.json'),
        detail: vscode.l10n.t('Shared with everyone who uses this folder or clones its repository.'),
        target: 'workspace' as const,
      },
      {
        label: vscode.l10n.t('$(lock) {0}', vscode.l10n.t('Keep on this machine only')),
        description: vscode.l10n.t("VS Code's storage"),
        detail: vscode.l10n.t('Nothing is written to the workspace; other people and other machines do not get this pairing.'),
        target: 'local' as const,
      },
    ],
    { title: vscode.l10n.t('Sync Folder to Volume: where should the pairing be saved?'), placeHolder: vscode.l10n.t('Asked once for this workspace'), ignoreFocusOut: true },
  );
  if (picked) await state.update(WORKSPACE_STATE_KEY.syncPairingTarget, picked.target);
  return picked?.target;
}

async function pickFolder(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: vscode.l10n.t('Sync Folder to Volume'),
    openLabel: vscode.l10n.t('Sync This Folder'),
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  return picked?.[0];
}

async function pickSyncVolume(known: VolumeTarget[]): Promise<string | undefined> {
  const picked = await pickVolume(known, {
    title: vscode.l10n.t('Sync Folder to Volume: which volume?'),
    placeholder: vscode.l10n.t('The volume that will mirror the folder'),
    newVolume: { label: vscode.l10n.t('Another volume…'), icon: 'edit', title: vscode.l10n.t('Volume name'), prompt: vscode.l10n.t('A new volume is created by the first upload.') },
    ignoreFocusOut: true,
  });
  return picked?.volume;
}
