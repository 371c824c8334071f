// Folder sync in the editor, loaded when a pairing exists or a sync command runs
// (syncFeature.ts): one PairingRunner per approved pairing whose folder resolves
// inside the workspace, rebuilt when the pairings, the ignore settings, the workspace
// folders or the workspace's trust change; the commands are in commands.ts. Nothing
// runs in Restricted Mode, and a pairing from the workspace's settings waits for the
// user's approval (vscode/syncSettings.ts). Nothing here touches the network until a
// command runs or a watched file is saved.
import { readFile } from 'node:fs/promises';
import * as vscode from 'vscode';
import { findPassage, insideFolder, workspaceFileFor, type SyncedFolder } from '../core/citedSource';
import type { SyncFeature, SyncFeatureDeps } from '../syncFeature';
import type { ExtensionServices } from '../../common/vscode/services';
import { shownVolume } from '../../common/vscode/settings';
import { shown } from '../../common/core/untrustedText';
import type { SyncSummary } from '../core/apply';
import type { SyncPlan } from '../core/plan';
import { registerSyncCommands } from './commands';
import { PairingRunner } from './syncRunner';
import { allPairings, pairingKey, pairingsWaitingForTrust, resolvePairingFolder, type SourcedPairing } from './syncSettings';
import { SyncStatusBar, type SyncNotices } from './syncStatusBar';

/**
 * Starts folder sync: builds the runners of the approved pairings and keeps them in step with
 * the settings, and registers the sync commands on `services` (syncFeature.ts hands it a
 * recorder, so its lazily registered commands reach them).
 */
export function startSync(services: ExtensionServices, deps: SyncFeatureDeps): SyncFeature {
  const statusBar = new SyncStatusBar();
  const runners = new Map<string, PairingRunner>();
  let details: vscode.OutputChannel | undefined;
  let notices: SyncNotices = { untrusted: 0, unapproved: [], refused: [] };
  services.context.subscriptions.push(statusBar, { dispose: () => runners.forEach((r) => r.dispose()) });

  const showSummary = (runner: PairingRunner, summary: SyncSummary, plan: SyncPlan) => {
    const parts = [
      vscode.l10n.t('{0} uploaded', summary.uploaded),
      vscode.l10n.t('{0} replaced', summary.replaced),
      vscode.l10n.t('{0} deleted', summary.deleted),
      vscode.l10n.t('{0} unchanged', plan.unchanged),
    ];
    if (summary.failed) parts.push(vscode.l10n.t('{0} failed', summary.failed));
    if (summary.cancelled) parts.push(vscode.l10n.t('{0} not done (cancelled)', summary.cancelled));
    // Said in the toast too (Show Details names them): a link or a credential file is not synced, and a file removed here stays in the volume when the pairing keeps removed files.
    // What the folder's own rules leave out (.git, .gitignore, ignored files) is not news: Show Details names it.
    const skipped = plan.skipped.filter((s) => !s.excluded);
    if (skipped.length) parts.push(vscode.l10n.t('{0} skipped', skipped.length));
    if (plan.keptRemote.length) parts.push(vscode.l10n.t('{0} removed here, kept in the volume', plan.keptRemote.length));
    const line = vscode.l10n.t('Sync {0} → {1}: {2}', runner.label, shownVolume(runner.pairing.volume), parts.join(', '));
    const showDetailsLabel = vscode.l10n.t('Show Details');
    const retryLabel = vscode.l10n.t('Retry Failed');
    const actions = [showDetailsLabel, ...(summary.failed || summary.cancelled ? [retryLabel] : [])];
    const show = summary.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void show(line, ...actions).then((choice) => {
      if (choice === showDetailsLabel) {
        if (!details) {
          details = vscode.window.createOutputChannel(vscode.l10n.t('KSM Sync Details'));
          services.context.subscriptions.push(details);
        }
        details.clear();
        details.appendLine(line);
        // One line per file: a name's newline would forge lines of this report.
        for (const r of summary.results) details.appendLine(`${r.action.padEnd(9)} ${shown(r.rel)}${'reason' in r ? `  ${shown(r.reason)}` : `  as ${shown(r.uuid)}`}`);
        // A reason can quote a file name (a name clash): escaped like the names, so it cannot forge lines either.
        for (const s of plan.skipped) details.appendLine(`${(s.excluded ? 'excluded' : 'skipped').padEnd(9)} ${shown(s.path)}  ${shown(s.reason)}`);
        for (const rel of plan.keptRemote) details.appendLine(`${'kept'.padEnd(9)} ${shown(rel)}  ${vscode.l10n.t('removed here, kept in the volume (the pairing keeps removed files)')}`);
        for (const f of plan.untracked) details.appendLine(`${'remote'.padEnd(9)} ${shown(f.filename)}  not from this folder, left alone`);
        details.show(true);
      } else if (choice === retryLabel) {
        // Failed and cancelled files are still different from the manifest: the next run retries exactly them.
        void runner.sync();
      }
    });
  };

  const disposeAll = () => {
    for (const runner of runners.values()) runner.dispose();
    runners.clear();
  };

  const rebuild = () => {
    const state = services.context.workspaceState;
    const pairings = allPairings(state);
    const next: SyncNotices = { untrusted: 0, unapproved: [], refused: [] };
    const wanted = new Map<string, { pairing: SourcedPairing; folder: string }>();
    if (!vscode.workspace.isTrusted) {
      // Restricted Mode: nothing syncs or watches; the status bar says why.
      void pairingsWaitingForTrust(state).then((count) => {
        if (vscode.workspace.isTrusted) return;
        notices = { ...notices, untrusted: count };
        statusBar.update([...runners.values()], notices);
      });
    } else {
      for (const p of pairings) {
        if (!p.approved) {
          next.unapproved.push(p);
          continue;
        }
        const folder = resolvePairingFolder(p);
        if (!folder.ok) {
          next.refused.push({ pairing: p, reason: folder.reason });
          services.log.warn(`[sync] refused the pairing '${shown(p.folder)}' → ${shown(p.volume)}: ${shown(folder.reason)}.`);
          continue;
        }
        wanted.set(pairingKey(p), { pairing: p, folder: folder.path });
      }
    }
    for (const [key, runner] of runners) {
      const w = wanted.get(key);
      if (!w || w.folder !== runner.folderPath || w.pairing.deleteRemoved !== runner.pairing.deleteRemoved || w.pairing.watch !== runner.pairing.watch) {
        runner.dispose();
        runners.delete(key);
      }
    }
    for (const [key, { pairing, folder }] of wanted) {
      if (runners.has(key)) continue;
      runners.set(
        key,
        new PairingRunner(pairing, folder, services, {
          onState: () => statusBar.update([...runners.values()], notices),
          onApplied: (volume, uploaded) => {
            // What the sync sent, so a file that ends `na` reads as a choice or a failure (D24).
            if (uploaded) deps.volumes.rememberProcessing(uploaded.uuids, uploaded.doChunking);
            deps.volumes.refreshVolume(volume);
          },
          showSummary,
        }),
      );
    }
    notices = next;
    statusBar.update([...runners.values()], notices);
    deps.volumes.markSynced(new Map([...runners.values()].map((r) => [r.pairing.volume, r.label])));
  };
  rebuild();
  services.context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('files.exclude') || e.affectsConfiguration('ksm.upload.exclude')) {
        // Each runner's watcher filter holds the exclude rules it was built with.
        disposeAll();
        rebuild();
      } else if (e.affectsConfiguration('ksm.sync')) rebuild();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => rebuild()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => rebuild()),
  );

  registerSyncCommands(services, deps, {
    all: () => [...runners.values()],
    get: (p) => runners.get(pairingKey(p)),
    rebuild,
    notices: () => notices,
  });

  return {
    workspaceSourceOf: async (cited) => {
      const folders = (await Promise.all([...runners.values()].map((r) => r.syncedFolder().catch(() => undefined)))).filter((f): f is SyncedFolder => f !== undefined);
      const match = workspaceFileFor(folders, cited);
      if (!match || !(await insideFolder(match.root, match.path))) return undefined;
      const text = await readFile(match.path, 'utf8').catch(() => undefined);
      if (text === undefined) return undefined;
      return { path: match.path, passage: findPassage(text, cited.snippet) };
    },
  };
}
