import * as vscode from 'vscode';
import { redactSecrets } from '../../api/errors';
import type { ClientLogger } from '../../api/types';

/**
 * The extension's one output channel. Lines name their component ("[upload] …"). Every
 * line passes through `redactSecrets`, so a key can never reach the log even if a caller
 * formats a request carelessly.
 */
export class Log implements ClientLogger, vscode.Disposable {
  readonly channel: vscode.LogOutputChannel;
  private secrets: () => ReadonlyArray<string | undefined> = () => [];

  constructor(channel?: vscode.LogOutputChannel) {
    this.channel = channel ?? vscode.window.createOutputChannel('KSM Assistant', { log: true });
  }

  /** Lets the log redact the current API key literally, not only "Bearer …" patterns. */
  setSecretSource(source: () => ReadonlyArray<string | undefined>): void {
    this.secrets = source;
  }

  scoped(component: string): ClientLogger {
    return {
      debug: (m) => this.debug(`[${component}] ${m}`),
      info: (m) => this.info(`[${component}] ${m}`),
      warn: (m) => this.warn(`[${component}] ${m}`),
      error: (m) => this.error(`[${component}] ${m}`),
    };
  }

  debug(message: string): void {
    this.channel.debug(this.clean(message));
  }
  info(message: string): void {
    this.channel.info(this.clean(message));
  }
  warn(message: string): void {
    this.channel.warn(this.clean(message));
  }
  error(message: string | Error): void {
    const text = message instanceof Error ? describeError(message) : message;
    this.channel.error(this.clean(text));
  }
  show(): void {
    this.channel.show(true);
  }
  dispose(): void {
    this.channel.dispose();
  }

  private clean(text: string): string {
    return redactSecrets(text, this.secrets());
  }
}

/** Full detail of an error for the log: name, message, status, cause chain and stack. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [`${error.name}: ${error.message}`];
  const status = (error as { status?: number }).status;
  if (status !== undefined) parts.push(`  status: ${status}`);
  if (error.stack) parts.push(error.stack.split('\n').slice(1, 8).join('\n'));
  if (error.cause !== undefined) parts.push(`  caused by: ${describeError(error.cause)}`);
  return parts.join('\n');
}
