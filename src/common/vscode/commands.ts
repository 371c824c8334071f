import * as vscode from 'vscode';
import { isCancellation, redactSecrets } from '../../api/errors';
import type { Log } from './log';
import { type CommandId } from '../core/contributionIds';
import { errorFix, messageWithFix, type ErrorFix } from '../core/errorFixes';

/**
 * A command's handler with the arguments it declares. VS Code passes whatever the caller gave
 * (a menu's item, a command link's JSON, another extension's values), so a handler that
 * takes arguments declares them `unknown` or optional and checks them before use.
 */
export type CommandHandler<Args extends unknown[] = []> = (...args: Args) => unknown;

/**
 * The one error wrapper every command goes through: user cancellation is silent, any
 * other failure is logged in full and shown as one short line with actions that fix it.
 */
export function registerCommand<Args extends unknown[]>(log: Log, id: CommandId, handler: CommandHandler<Args>): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    try {
      return await handler(...(args as Args));
    } catch (error) {
      await reportError(log, error, `Command ${id} failed`);
      return undefined;
    }
  });
}

/** Logs the detail and shows a short message (after `lead`, which says what failed, when given); shared by commands and background work. */
export async function reportError(log: Log, error: unknown, context: string, lead = ''): Promise<void> {
  if (isCancellation(error) || error instanceof vscode.CancellationError) return;
  log.error(`${context}: ${error instanceof Error ? '' : String(error)}`);
  if (error instanceof Error) log.error(error);
  const short = redactSecrets(lead + shortMessage(error));
  const fixes = fixActions(error);
  const showLog = vscode.l10n.t('Show Log');
  const choice = await vscode.window.showErrorMessage(short, ...fixes.map((f) => f.title), showLog);
  if (choice === showLog) log.show();
  else await runChosenFix(fixes, choice);
}

function fixActions(error: unknown): ErrorFix['action'][] {
  const fix = errorFix(error);
  return fix ? [fix.action, ...(fix.alternatives ?? [])] : [];
}

async function runChosenFix(fixes: ErrorFix['action'][], choice: string | undefined): Promise<void> {
  const chosen = fixes.find((f) => f.title === choice);
  if (chosen) await vscode.commands.executeCommand(chosen.command);
}

/** For failures already shown elsewhere (an answer's inline error): the one-click fix, if there is one. */
export async function offerFix(error: unknown): Promise<void> {
  const fix = errorFix(error);
  if (!fix) return;
  const fixes = fixActions(error);
  const choice = await vscode.window.showErrorMessage(fix.problem, ...fixes.map((f) => f.title));
  await runChosenFix(fixes, choice);
}

export function shortMessage(error: unknown): string {
  const firstLine = messageWithFix(error);
  return firstLine.length > 300 ? `${firstLine.slice(0, 297)}…` : firstLine;
}
