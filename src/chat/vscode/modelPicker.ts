// The chat's model picker: a VS Code quick pick rather than a list inside the webview. The
// Chat view may be 170 px wide; a quick pick opens full width at the top of the window,
// filters as you type, is keyboard- and screen-reader-accessible like every VS Code picker,
// and groups the models with separators (recently used first, then those from settings).
// Typing an id that is not listed offers it as a free entry.
import * as vscode from 'vscode';
import { modelChoices, modelIdProblem, type ModelChoice } from '../core/modelChoices';
import type { ModelOptions } from '../core/conversationModel';

type ModelItem = vscode.QuickPickItem & { model?: string };

const groupLabel = (group: ModelChoice['group']): string => (group === 'recent' ? vscode.l10n.t('Recently used') : vscode.l10n.t('From settings (ksm.chat.models)'));

/** Shows the picker; resolves to the chosen model id, or undefined when the user cancelled. */
export function showModelPicker(current: string, options: ModelOptions, recent: readonly string[]): Promise<string | undefined> {
  const pick = vscode.window.createQuickPick<ModelItem>();
  pick.title = vscode.l10n.t('KSM: Chat Model');
  pick.placeholder = vscode.l10n.t('Pick a model, or type any model id');
  const listed = modelChoices(options, recent, current);
  const base: ModelItem[] = [];
  for (const choice of listed) {
    if (base.length === 0 || listed[listed.indexOf(choice) - 1]?.group !== choice.group) {
      base.push({ label: groupLabel(choice.group), kind: vscode.QuickPickItemKind.Separator });
    }
    base.push({ label: choice.model, model: choice.model, description: choice.notes.join(' · '), ...(choice.model === current ? { picked: true } : {}) });
  }
  const known = new Set(listed.map((c) => c.model));
  const freeEntry = (value: string): ModelItem[] => {
    const id = value.trim();
    if (!id || known.has(id)) return [];
    const problem = modelIdProblem(id);
    return problem ? [{ label: id, description: problem, alwaysShow: true }] : [{ label: id, model: id, description: vscode.l10n.t('Use this model id'), alwaysShow: true }];
  };
  pick.items = base;
  const currentItem = base.find((item) => item.model === current);
  if (currentItem) pick.activeItems = [currentItem];
  if (listed.length === 0) pick.placeholder = vscode.l10n.t('No models in settings (ksm.chat.models): type a model id');
  return new Promise((resolve) => {
    let chosen: string | undefined;
    pick.onDidChangeValue((value) => (pick.items = [...freeEntry(value), ...base]));
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (!item?.model) return;
      chosen = item.model;
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(chosen);
    });
    pick.show();
  });
}
