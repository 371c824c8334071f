// Folder sync in the editor: "KSM: Sync Folder to Volume…" (Explorer, palette), Sync Now,
// the preview from the status bar, Stop Syncing; one PairingRunner per `ksm.sync.folders`
// entry, rebuilt when the setting changes. Nothing here touches the network until a
// command runs or a watched file is saved.
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { COMMAND } from '../common/core/contributionIds';
import { shownVolumes, type VolumeTarget } from '../common/core/volumeTargets';
import { pickVolume } from '../common/vscode/volumePicker';
import type { VolumesFeature } from '../volumes/volumesFeature';
import type { ExtensionServices } from '../common/vscode/services';
import { personalVolume, settings, shownVolume } from '../common/vscode/settings';
import type { SyncSummary } from './core/apply';
import type { SyncPlan } from './core/plan';
import { PairingRunner } from './vscode/syncRunner';
import { pairingKey, resolvePairingFolder, savePairings, storedFolder, syncSettings, type Pairing } from './vscode/syncSettings';
import { SyncStatusBar } from './vscode/syncStatusBar';

export interface SyncFeatureDeps {
  /** Refresh a synced volume, mark synced volumes, put a newly paired volume in the view. */
  volumes: Pick<VolumesFeature, 'refreshVolume' | 'markSynced' | 'addVolumeToView' | 'rememberProcessing'>;
}

/** Answers given up front (tests, scripts); each one left out is asked. */
export interface PairingChoices {
  volume?: string;
  deleteRemoved?: boolean;
  watch?: boolean;
}

export function registerSyncFeature(services: ExtensionServices, deps: SyncFeatureDeps): void {
  const statusBar = new SyncStatusBar();
  const runners = new Map<string, PairingRunner>();
  let details: vscode.OutputChannel | undefined;
  services.context.subscriptions.push(statusBar, { dispose: () => runners.forEach((r) => r.dispose()) });

  const showSummary = (runner: PairingRunner, summary: SyncSummary, plan: SyncPlan) => {
    const parts = [`${summary.uploaded} uploaded`, `${summary.replaced} replaced`, `${summary.deleted} deleted`, `${plan.unchanged} unchanged`];
    if (summary.failed) parts.push(`${summary.failed} failed`);
    if (summary.cancelled) parts.push(`${summary.cancelled} not done (cancelled)`);
    const line = `Sync ${runner.label} → ${shownVolume(runner.pairing.volume)}: ${parts.join(', ')}`;
    const actions = ['Show Details', ...(summary.failed || summary.cancelled ? ['Retry Failed'] : [])];
    const show = summary.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(line, ...actions).then((choice) => {
      if (choice === 'Show Details') {
        if (!details) {
          details = vscode.window.createOutputChannel('KSM Sync Details');
          services.context.subscriptions.push(details);
        }
        details.clear();
        details.appendLine(line);
        for (const r of summary.results) details.appendLine(`${r.action.padEnd(9)} ${r.rel}${'reason' in r ? `  ${r.reason}` : `  as ${r.uuid}`}`);
        for (const s of plan.skipped) details.appendLine(`${'skipped'.padEnd(9)} ${s.path}  ${s.reason}`);
        for (const f of plan.untracked) details.appendLine(`${'remote'.padEnd(9)} ${f.filename}  not from this folder, left alone`);
        details.show(true);
      } else if (choice === 'Retry Failed') {
        // Failed and cancelled files are still different from the manifest: the next run retries exactly them.
        void runner.sync();
      }
    });
  };

  const rebuild = () => {
    const wanted = new Map<string, Pairing>();
    for (const p of syncSettings.pairings()) wanted.set(pairingKey(p), p);
    for (const [key, runner] of runners) {
      const p = wanted.get(key);
      if (!p || p.deleteRemoved !== runner.pairing.deleteRemoved || p.watch !== runner.pairing.watch) {
        runner.dispose();
        runners.delete(key);
      }
    }
    for (const [key, p] of wanted) {
      if (runners.has(key)) continue;
      const folder = resolvePairingFolder(p);
      if (!folder) {
        services.log.warn(`[sync] ignored the ksm.sync.folders entry '${p.folder}' → ${p.volume}: it is not inside a workspace folder.`);
        continue;
      }
      runners.set(
        key,
        new PairingRunner(p, folder, services, {
          onState: () => statusBar.update([...runners.values()]),
          onApplied: (volume, uploaded) => {
            // What the sync sent, so a file that ends `na` reads as a choice or a failure (D24).
            if (uploaded) deps.volumes.rememberProcessing(uploaded.uuids, uploaded.doChunking);
            deps.volumes.refreshVolume(volume);
          },
          showSummary,
        }),
      );
    }
    statusBar.update([...runners.values()]);
    deps.volumes.markSynced(new Map([...runners.values()].map((r) => [r.pairing.volume, r.label])));
  };
  rebuild();
  services.context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('files.exclude') || e.affectsConfiguration('ksm.upload.exclude')) {
        // Each runner's watcher filter holds the exclude rules it was built with.
        for (const runner of runners.values()) runner.dispose();
        runners.clear();
        rebuild();
      } else if (e.affectsConfiguration('ksm.sync')) rebuild();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => rebuild()),
  );

  const pickRunner = async (title: string): Promise<PairingRunner | undefined> => {
    const all = [...runners.values()];
    if (all.length <= 1) return all[0];
    const picked = await vscode.window.showQuickPick(
      all.map((r) => ({ label: r.label, description: `→ ${shownVolume(r.pairing.volume)}`, runner: r })),
      { title, placeHolder: 'Which folder?' },
    );
    return picked?.runner;
  };

  services.registerCommand(COMMAND.syncFolder, async (uri?: vscode.Uri, _uris?: unknown, choices: PairingChoices = {}) => {
    const folder = uri instanceof vscode.Uri && uri.scheme === 'file' ? uri : await pickFolder();
    if (!folder) return undefined;
    const stored = storedFolder(folder.fsPath);
    if (!stored) return void vscode.window.showWarningMessage('Only a folder inside this workspace can be synced (the pairing is saved in the workspace settings). Open its parent folder first.');
    const existing = [...runners.values()].find((r) => r.folderPath === folder.fsPath && (!choices.volume || r.pairing.volume === choices.volume));
    if (existing) return existing.sync();
    const volume = choices.volume ?? (await pickSyncVolume(shownVolumes(personalVolume(), settings.volumes())));
    if (!volume) return undefined;
    let deleteRemoved = choices.deleteRemoved;
    let watch = choices.watch;
    if (deleteRemoved === undefined || watch === undefined) {
      const options = await vscode.window.showQuickPick(
        [
          { label: 'Delete removed files', description: 'files removed from the folder are deleted from the volume (after a preview)', id: 'delete', picked: false },
          { label: 'Sync on save', description: 'watch the folder and sync after changes', id: 'watch', picked: false },
        ],
        { title: `Sync ${basename(folder.fsPath)} → ${shownVolume(volume)}: options`, placeHolder: 'Tick what you want (Space), then Enter', canPickMany: true, ignoreFocusOut: true },
      );
      if (!options) return undefined;
      deleteRemoved ??= options.some((o) => o.id === 'delete');
      watch ??= options.some((o) => o.id === 'watch');
    }
    const pairing: Pairing = { folder: stored, volume, deleteRemoved, watch };
    await savePairings([...syncSettings.pairings().filter((p) => pairingKey(p) !== pairingKey(pairing)), pairing]);
    if (volume !== personalVolume() && !settings.volumes().includes(volume)) await deps.volumes.addVolumeToView(volume);
    rebuild();
    return runners.get(pairingKey(pairing))?.sync({ preview: true });
  });

  services.registerCommand(COMMAND.syncNow, async () => {
    const runner = await pickRunner('Sync Now');
    if (!runner) return void vscode.window.showInformationMessage('No folder is paired with a volume yet. Right-click a folder in the Explorer and choose "Sync Folder to Volume…".');
    return runner.sync();
  });

  services.registerCommand(COMMAND.syncShowPreview, async () => {
    const runner = await pickRunner('Preview Sync');
    if (!runner) return void vscode.window.showInformationMessage('No folder is paired with a volume yet. Right-click a folder in the Explorer and choose "Sync Folder to Volume…".');
    return runner.sync({ preview: true });
  });

  services.registerCommand(COMMAND.syncStop, async () => {
    const runner = await pickRunner('Stop Syncing');
    if (!runner) return;
    await savePairings(syncSettings.pairings().filter((p) => pairingKey(p) !== pairingKey(runner.pairing)));
    rebuild();
    void vscode.window.showInformationMessage(`${runner.label} is no longer synced with ${shownVolume(runner.pairing.volume)}. Nothing was deleted.`);
  });
}

async function pickFolder(): Promise<vscode.Uri | undefined> {
  const picked = await vscode.window.showOpenDialog({
    title: 'Sync Folder to Volume',
    openLabel: 'Sync This Folder',
    canSelectFiles: false,
    canSelectFolders: true,
    canSelectMany: false,
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  return picked?.[0];
}

async function pickSyncVolume(known: VolumeTarget[]): Promise<string | undefined> {
  const picked = await pickVolume(known, {
    title: 'Sync Folder to Volume: which volume?',
    placeholder: 'The volume that will mirror the folder',
    newVolume: { label: 'Another volume…', icon: 'edit', title: 'Volume name', prompt: 'A new volume is created by the first upload.' },
    ignoreFocusOut: true,
  });
  return picked?.volume;
}
