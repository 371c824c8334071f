import * as vscode from 'vscode';
import { isCancellation, isKsmError, redactSecrets, type KsmError } from '../../api/errors';
import type { Log } from './log';

/**
 * The one error wrapper every command goes through: user cancellation is silent, any
 * other failure is logged in full and shown as one short line with actions that fix it.
 */
export function registerCommand(
  log: Log,
  id: string,
  // VS Code passes whatever the caller gave; each handler declares the arguments it checks.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handler: (...args: any[]) => unknown,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...args);
    } catch (error) {
      await reportError(log, error, `Command ${id} failed`);
      return undefined;
    }
  });
}

/** Logs the detail and shows a short message; shared by commands and background work. */
export async function reportError(log: Log, error: unknown, context: string): Promise<void> {
  if (isCancellation(error) || error instanceof vscode.CancellationError) return;
  log.error(`${context}: ${error instanceof Error ? '' : String(error)}`);
  if (error instanceof Error) log.error(error);
  const short = redactSecrets(shortMessage(error));
  const actions = isKsmError(error) ? actionsFor(error) : [];
  const choice = await vscode.window.showErrorMessage(short, ...actions.map((a) => a.title), 'Show Log');
  if (choice === 'Show Log') log.show();
  const action = actions.find((a) => a.title === choice);
  if (action) await vscode.commands.executeCommand(action.command);
}

export function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n')[0] ?? message;
  return firstLine.length > 300 ? `${firstLine.slice(0, 297)}…` : firstLine;
}

function actionsFor(error: KsmError): Array<{ title: string; command: string }> {
  switch (error.kind) {
    case 'auth':
      return [{ title: 'Set API Key', command: 'ksm.setApiKey' }];
    case 'config':
      return [{ title: 'Open Settings', command: 'ksm.openSettings' }];
    default:
      return [];
  }
}
