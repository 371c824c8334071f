// The vscode-free cores (src/api, src/*/core) translate through `@vscode/l10n`, which reads
// the same bundle as `vscode.l10n.t` once it is handed over here. VS Code has already loaded
// the bundle of the display language (l10n/bundle.l10n.<locale>.json) when it activates us,
// so this costs no I/O; in English there is no bundle and both return the source text. The
// CLI and the MCP server never call it, so the cores speak English there.
import * as l10n from '@vscode/l10n';
import * as vscode from 'vscode';

export function configureCoreL10n(): void {
  const bundle = vscode.l10n.bundle;
  if (bundle) l10n.config({ contents: bundle });
}
