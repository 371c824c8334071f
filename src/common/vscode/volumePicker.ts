// The one volume picker: the shown volumes ("My files" first, then the named ones, as
// volumeTargets.ts orders and labels them), each with its icon, plus one item that asks for
// a new volume's name (checked by volumeNameProblem). Upload and sync both ask through it,
// each in its own words.
import * as vscode from 'vscode';
import { volumeCodicon, volumeLabel, volumeNameProblem, type VolumeTarget } from '../core/volumeTargets';

export interface VolumeChoice extends VolumeTarget {
  /** Said after the name (the personal volume's raw name `{id}` always comes first). */
  notes?: readonly string[];
  /** One button on the item (upload's gear); picking through it sets `viaButton`. */
  button?: vscode.QuickInputButton;
}

export interface VolumePickWords {
  title: string;
  placeholder: string;
  /** The item that asks for a new volume's name, that input box's title and prompt, and the names it refuses as taken. */
  newVolume: { label: string; icon: string; title: string; prompt: string; taken?: readonly string[] };
  ignoreFocusOut?: boolean;
}

export interface PickedVolume {
  volume: string;
  /** Typed into the new-volume box, not one of the choices. */
  isNew: boolean;
  /** Picked through the item's button. */
  viaButton: boolean;
}

/** Undefined when the user cancels either step. */
export async function pickVolume(choices: readonly VolumeChoice[], words: VolumePickWords): Promise<PickedVolume | undefined> {
  type Item = vscode.QuickPickItem & { volume?: string };
  const items: Item[] = choices.map((choice) => ({
    label: volumeLabel(choice),
    description: [choice.personal ? choice.volume : undefined, ...(choice.notes ?? [])].filter(Boolean).join(' · ') || undefined,
    iconPath: new vscode.ThemeIcon(volumeCodicon(choice)),
    volume: choice.volume,
    buttons: choice.button ? [choice.button] : undefined,
  }));
  items.push({ label: words.newVolume.label, iconPath: new vscode.ThemeIcon(words.newVolume.icon), alwaysShow: true });
  const picked = await new Promise<{ item: Item; viaButton: boolean } | undefined>((resolve) => {
    const quickPick = vscode.window.createQuickPick<Item>();
    quickPick.title = words.title;
    quickPick.placeholder = words.placeholder;
    quickPick.ignoreFocusOut = words.ignoreFocusOut ?? false;
    quickPick.items = items;
    let result: { item: Item; viaButton: boolean } | undefined;
    quickPick.onDidAccept(() => {
      const item = quickPick.selectedItems[0];
      if (item) result = { item, viaButton: false };
      quickPick.hide();
    });
    quickPick.onDidTriggerItemButton((e) => {
      result = { item: e.item, viaButton: true };
      quickPick.hide();
    });
    quickPick.onDidHide(() => {
      quickPick.dispose();
      resolve(result);
    });
    quickPick.show();
  });
  if (!picked) return undefined;
  if (picked.item.volume !== undefined) return { volume: picked.item.volume, isNew: false, viaButton: picked.viaButton };
  const name = await vscode.window.showInputBox({
    title: words.newVolume.title,
    prompt: words.newVolume.prompt,
    ignoreFocusOut: words.ignoreFocusOut ?? false,
    validateInput: (value) => volumeNameProblem(value, words.newVolume.taken),
  });
  const volume = name?.trim();
  return volume ? { volume, isNew: true, viaButton: false } : undefined;
}
