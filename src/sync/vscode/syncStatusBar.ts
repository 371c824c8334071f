// One status bar item for the workspace's sync pairings: in sync / N pending / syncing /
// error, worst state first; clicking it opens the preview. In Restricted Mode it says that
// sync waits for trust (click: Manage Workspace Trust); pairings from the repository that
// wait for approval and pairings refused (folder outside the workspace) are said too.
import * as vscode from 'vscode';
import { markdownText, shownInput } from '../../common/core/untrustedText';
import { COMMAND } from '../../common/core/contributionIds';
import type { PairingRunner } from './syncRunner';
import type { SourcedPairing } from './syncSettings';
import { shownVolume } from '../../common/vscode/settings';
import { describeSyncState, syncStatusText } from './syncStatusText';

/** Why pairings do not run, for the status bar. */
export interface SyncNotices {
  /** Pairings found while the workspace is not trusted (none of them runs). */
  untrusted: number;
  /** Workspace pairings the user has not approved on this machine. */
  unapproved: SourcedPairing[];
  /** Approved pairings whose folder does not resolve inside the workspace. */
  refused: Array<{ pairing: SourcedPairing; reason: string }>;
}

export class SyncStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('ksm.sync.status', vscode.StatusBarAlignment.Left, 50);

  constructor() {
    this.item.name = vscode.l10n.t('KSM Sync');
    this.item.command = COMMAND.syncShowPreview;
  }

  update(runners: readonly PairingRunner[], notices: SyncNotices = { untrusted: 0, unapproved: [], refused: [] }): void {
    this.item.backgroundColor = undefined;
    this.item.command = COMMAND.syncShowPreview;
    if (notices.untrusted) {
      this.item.text = vscode.l10n.t('$(workspace-untrusted) {0}', vscode.l10n.t('KSM: sync waits for trust'));
      this.item.command = 'workbench.trust.manage';
      this.show(
        vscode.l10n.t(
          '**KSM folder sync waits for workspace trust**\n\nThis workspace is open in Restricted Mode: its {0} pairing(s) neither sync nor watch, and the KSM upload tool does not run. Click to manage workspace trust.',
          notices.untrusted,
        ),
        vscode.l10n.t('KSM sync waits for workspace trust'),
      );
      return;
    }
    const extra = [
      // The repository's words: bounded here, escaped for the tooltip's Markdown below.
      ...notices.unapproved.map((p) => vscode.l10n.t('{0} → {1}: from the repository, waits for your approval', shownInput(p.folder, 130), shownInput(p.volume, 130))),
      ...notices.refused.map((r) => vscode.l10n.t('{0} → {1}: refused, {2}', shownInput(r.pairing.folder, 130), shownInput(r.pairing.volume, 130), shownInput(r.reason, 300))),
    ];
    if (runners.length === 0) {
      if (notices.unapproved.length) {
        this.item.text = vscode.l10n.t('$(workspace-untrusted) {0}', vscode.l10n.t('KSM: {0} pairing(s) from the repository', notices.unapproved.length));
        this.item.command = COMMAND.syncReviewPairings;
        this.show(
          `**${vscode.l10n.t('KSM folder sync')}**\n\n${extra.map((l) => `- ${markdownText(l)}`).join('\n')}\n\n${vscode.l10n.t('Click to review them; nothing syncs until you approve.')}`,
          vscode.l10n.t('KSM sync. {0}', extra.join('. ')),
        );
      } else if (notices.refused.length) {
        this.item.text = vscode.l10n.t('$(error) {0}', vscode.l10n.t('KSM: sync refused'));
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        this.show(`**${vscode.l10n.t('KSM folder sync')}**\n\n${extra.map((l) => `- ${markdownText(l)}`).join('\n')}`, vscode.l10n.t('KSM sync. {0}', extra.join('. ')));
      } else {
        this.item.hide();
      }
      return;
    }
    const lines = [...runners.map((r) => `${r.label} → ${shownVolume(r.pairing.volume)}: ${describeSyncState(r.state)}`), ...extra];
    const status = syncStatusText(runners.map((r) => r.state));
    const refused = notices.refused.length > 0 && !status.error;
    this.item.text = refused ? vscode.l10n.t('$(error) {0}', vscode.l10n.t('KSM: sync refused')) : status.text;
    this.item.backgroundColor = status.error || refused ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.show(
      `**${vscode.l10n.t('KSM folder sync')}**\n\n${lines.map((l) => `- ${markdownText(l)}`).join('\n')}\n\n${vscode.l10n.t('Click to preview and sync.')}`,
      vscode.l10n.t('KSM sync. {0}', lines.join('. ')),
    );
  }

  private show(tooltip: string, label: string): void {
    this.item.tooltip = new vscode.MarkdownString(tooltip);
    this.item.accessibilityInformation = { label, role: 'button' };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
