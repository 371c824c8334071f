import * as vscode from 'vscode';
import { isCancellation, redactSecrets } from '../../api/errors';
import type { Log } from './log';
import { type CommandId } from '../core/contributionIds';
import { errorFix } from '../core/errorFixes';

/**
 * The one error wrapper every command goes through: user cancellation is silent, any
 * other failure is logged in full and shown as one short line with actions that fix it.
 */
export function registerCommand(
  log: Log,
  id: CommandId,
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
  const fix = errorFix(error)?.action;
  const choice = await vscode.window.showErrorMessage(short, ...(fix ? [fix.title] : []), 'Show Log');
  if (choice === 'Show Log') log.show();
  else if (fix && choice === fix.title) await vscode.commands.executeCommand(fix.command);
}

/** For failures already shown elsewhere (an answer's inline error): the one-click fix, if there is one. */
export async function offerFix(error: unknown): Promise<void> {
  const fix = errorFix(error);
  if (!fix) return;
  const choice = await vscode.window.showErrorMessage(fix.problem, fix.action.title);
  if (choice === fix.action.title) await vscode.commands.executeCommand(fix.action.command);
}

export function shortMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n')[0] ?? message;
  return firstLine.length > 300 ? `${firstLine.slice(0, 297)}…` : firstLine;
}
