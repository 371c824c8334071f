// The end of an upload: "12 uploaded, 2 failed" with "Show Details" (a per-file listing in
// an output channel) and "Retry Failed".
import * as vscode from 'vscode';
import type { ExtensionServices } from '../../common/vscode/services';
import type { UploadSummary } from '../core/uploadRun';

let detailsChannel: vscode.OutputChannel | undefined;

export function summaryLine(summary: UploadSummary): string {
  const parts = [`${summary.uploaded} uploaded`];
  if (summary.failed) parts.push(`${summary.failed} failed`);
  if (summary.skipped) parts.push(`${summary.skipped} skipped`);
  if (summary.cancelled) parts.push(`${summary.cancelled} not sent (cancelled)`);
  return `${parts.join(', ')} — ${summary.volume}`;
}

export async function showSummary(services: ExtensionServices, summary: UploadSummary, retry: (paths: string[]) => unknown): Promise<void> {
  const failedPaths = summary.results.filter((r) => r.outcome === 'failed' || r.outcome === 'cancelled').map((r) => r.path);
  const actions = ['Show Details', ...(failedPaths.length ? ['Retry Failed'] : [])];
  const line = summaryLine(summary);
  const show = summary.failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await show(line, ...actions);
  if (choice === 'Show Details') {
    if (!detailsChannel) {
      detailsChannel = vscode.window.createOutputChannel('KSM Upload Details');
      services.context.subscriptions.push(detailsChannel);
    }
    detailsChannel.clear();
    detailsChannel.appendLine(line);
    for (const r of summary.results) {
      const why = r.outcome === 'uploaded' ? `as ${r.info.uuid}${r.replaced ? `, replaced ${r.replaced} older copy` : ''}${r.replaceError ? ` (${r.replaceError})` : ''}` : r.reason;
      detailsChannel.appendLine(`${r.outcome.padEnd(9)} ${r.filename}  ${why}  [${r.path}]`);
    }
    detailsChannel.show(true);
  } else if (choice === 'Retry Failed') {
    await retry(failedPaths);
  }
}
