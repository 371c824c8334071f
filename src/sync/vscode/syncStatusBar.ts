// One status bar item for the workspace's sync pairings: in sync / N pending / syncing /
// error, worst state first; clicking it opens the preview.
import * as vscode from 'vscode';
import { COMMAND } from '../../common/core/contributionIds';
import type { PairingRunner } from './syncRunner';
import { shownVolume } from '../../common/vscode/settings';
import { describeSyncState, syncStatusText } from './syncStatusText';

export class SyncStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('ksm.sync.status', vscode.StatusBarAlignment.Left, 50);

  constructor() {
    this.item.name = 'KSM Sync';
    this.item.command = COMMAND.syncShowPreview;
  }

  update(runners: readonly PairingRunner[]): void {
    if (runners.length === 0) {
      this.item.hide();
      return;
    }
    const lines = runners.map((r) => `${r.label} → ${shownVolume(r.pairing.volume)}: ${describeSyncState(r.state)}`);
    const status = syncStatusText(runners.map((r) => r.state));
    this.item.text = status.text;
    this.item.backgroundColor = status.error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.item.tooltip = new vscode.MarkdownString(`**KSM folder sync**\n\n${lines.map((l) => `- ${escape(l)}`).join('\n')}\n\nClick to preview and sync.`);
    this.item.accessibilityInformation = { label: `KSM sync. ${lines.join('. ')}`, role: 'button' };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
