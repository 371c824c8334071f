import type * as vscode from 'vscode';
import type { KsmService } from '../../api/service';
import type { CommandId } from '../core/contributionIds';
import type { ApiKeyStore } from './apiKey';
import type { CommandHandler } from './commands';
import type { Log } from './log';

/**
 * What every feature gets from `activate()`. Nothing here does network or heavy work
 * when created; the client is built per call from the current settings and key.
 */
export interface ExtensionServices {
  readonly context: vscode.ExtensionContext;
  readonly log: Log;
  readonly apiKey: ApiKeyStore;
  /** A client for the current settings; throws ConfigurationError when no base URL is set. */
  getClient(): KsmService;
  /** Registers a command through the shared error wrapper and disposes it with the extension. */
  registerCommand<Args extends unknown[]>(id: CommandId, handler: CommandHandler<Args>): void;
}
