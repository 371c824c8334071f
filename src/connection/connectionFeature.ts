// Check Connection: wiring only. The commands are in vscode/commands.ts, the check without
// VS Code in core/connectionCheck.ts.
import type { ExtensionServices } from '../common/vscode/services';
import { registerConnectionCommands } from './vscode/commands';

export function registerConnectionFeature(services: ExtensionServices): void {
  registerConnectionCommands(services);
}
