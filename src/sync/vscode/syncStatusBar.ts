// One status bar item for the workspace's sync pairings: in sync / N pending / syncing /
// error, worst state first; clicking it opens the preview.
import * as vscode from 'vscode';
import { COMMAND } from '../../common/core/contributionIds';
import type { PairingRunner } from './syncRunner';
import { shownVolume } from '../../common/vscode/settings';

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
    const states = runners.map((r) => r.state);
    const errors = runners.filter((r) => r.state.kind === 'error');
    const pending = states.reduce((sum, s) => sum + (s.kind === 'pending' ? s.count : 0), 0);
    const lines = runners.map((r) => `${r.label} → ${shownVolume(r.pairing.volume)}: ${describe(r)}`);
    this.item.backgroundColor = undefined;
    if (states.some((s) => s.kind === 'syncing')) {
      this.item.text = '$(sync~spin) KSM: syncing';
    } else if (errors.length) {
      this.item.text = '$(error) KSM: sync error';
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    } else if (pending) {
      this.item.text = `$(cloud-upload) KSM: ${pending} pending`;
    } else if (states.every((s) => s.kind === 'inSync')) {
      this.item.text = '$(check) KSM: in sync';
    } else {
      this.item.text = '$(sync) KSM: sync';
    }
    this.item.tooltip = new vscode.MarkdownString(`**KSM folder sync**\n\n${lines.map((l) => `- ${escape(l)}`).join('\n')}\n\nClick to preview and sync.`);
    this.item.accessibilityInformation = { label: `KSM sync. ${lines.join('. ')}`, role: 'button' };
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}

function describe(runner: PairingRunner): string {
  const s = runner.state;
  switch (s.kind) {
    case 'idle':
      return 'not synced in this window yet';
    case 'inSync':
      return 'in sync';
    case 'pending':
      return `${s.count} pending`;
    case 'syncing':
      return 'syncing…';
    case 'error':
      return `error: ${s.message}`;
  }
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
