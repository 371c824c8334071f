import * as vscode from 'vscode';
import { settings } from './settings';

/**
 * The globs a folder upload and a folder sync skip, besides `.gitignore`: the `files.exclude`
 * entries switched on (`true`; conditional `{when}` entries are not applied), then
 * `ksm.upload.exclude`. Both read them here so they skip the same files
 * (src/common/core/folderExpansion.ts applies them).
 */
export function excludeGlobs(): string[] {
  const filesExclude = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude', {});
  const on = Object.entries(filesExclude ?? {}).filter(([, value]) => value === true).map(([glob]) => glob);
  return [...on, ...settings.uploadExclude()];
}
