import * as vscode from 'vscode';
import { settings } from './settings';

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
