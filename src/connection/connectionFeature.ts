// Check Connection and the account commands (API key, settings, log, Connect to Local
// Emulator, Restore Previous Connection): wiring only. The commands are in
// vscode/commands.ts and vscode/accountCommands.ts, the logic without VS Code in core/.
import type { ExtensionServices } from '../common/vscode/services';
import { registerAccountCommands } from './vscode/accountCommands';
import { registerConnectionCommands } from './vscode/commands';

export function registerConnectionFeature(services: ExtensionServices): void {
  registerAccountCommands(services);
  registerConnectionCommands(services);
}
