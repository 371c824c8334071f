import * as vscode from 'vscode';
import { settings } from './settings';
import type { PrivateFileRules } from '../core/privateFiles';

/**
 * The globs a folder upload and a folder sync skip, besides `.gitignore`: the `files.exclude`
 * entries switched on (`true`; conditional `{when}` entries are not applied), then
 * `ksm.upload.exclude`. Both read them here so they skip the same files
 * (src/common/core/folderExpansion.ts applies them).
 */
export function excludeGlobs(): string[] {
  return [...filesExcludeGlobs(), ...settings.uploadExclude()];
}

/** Only the `files.exclude` entries switched on (the upload tool names which setting refused a file). */
export function filesExcludeGlobs(): string[] {
  const filesExclude = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude', {});
  return Object.entries(filesExclude ?? {})
    .filter(([, value]) => value === true)
    .map(([glob]) => glob);
}

/**
 * The private-file rules as this window sets them: its local workspace folders and both
 * exclude settings. The upload tool, `@ksm`'s references and the panel's Ask About chips
 * read them here, so they judge a file alike (src/common/core/privateFiles.ts decides).
 */
export function privateFileRules(): PrivateFileRules {
  return {
    workspaceRoots: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    filesExclude: filesExcludeGlobs(),
    uploadExclude: settings.uploadExclude(),
  };
}
