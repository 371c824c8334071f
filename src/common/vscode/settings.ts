// The one reader of `ksm.*` settings: every value comes from the table in
// src/common/core/settingsTable.ts (key, default, normalisation), read at call time (never
// cached: users edit them live). In Restricted Mode a data-routing setting's workspace
// value is ignored here as VS Code ignores it (restrictedConfigurations): only the user's
// own value or the default counts.
import * as vscode from 'vscode';
import { SETTINGS, settingByKey, type SettingName, type SettingValue } from '../core/settingsTable';
import { personalVolumeName, volumeDisplayName } from '../core/volumeTargets';

export function readSetting<N extends SettingName>(name: N): SettingValue<N> {
  const spec = SETTINGS[name];
  const config = vscode.workspace.getConfiguration();
  let raw: unknown;
  if (spec.dataRouting && !vscode.workspace.isTrusted) {
    const inspected = config.inspect(spec.key);
    raw = inspected?.globalValue ?? inspected?.defaultValue;
  } else {
    raw = config.get(spec.key);
  }
  return spec.read(raw === undefined ? spec.default : raw) as SettingValue<N>;
}

/** A setting's value in the user's settings and in the workspace's, each normalised (undefined where not set). */
export function settingLayers<N extends SettingName>(name: N): { user?: SettingValue<N>; workspace?: SettingValue<N> } {
  const spec = SETTINGS[name];
  const inspected = vscode.workspace.getConfiguration().inspect(spec.key);
  const read = (raw: unknown) => (raw === undefined ? undefined : (spec.read(raw) as SettingValue<N>));
  return { user: read(inspected?.globalValue), workspace: read(inspected?.workspaceValue ?? inspected?.workspaceFolderValue) };
}

/** A setting's values as stored in the user's settings and the workspace's, not normalised (for a write that must keep what it does not change). */
export function storedSettingLayers(name: SettingName): { user?: unknown; workspace?: unknown } {
  const inspected = vscode.workspace.getConfiguration().inspect(SETTINGS[name].key);
  return { user: inspected?.globalValue, workspace: inspected?.workspaceValue ?? inspected?.workspaceFolderValue };
}

/** Typed access by purpose; each is one row of the settings table. */
export const settings = {
  baseUrl: (): string => readSetting('baseUrl'),
  userId: (): string => readSetting('userId'),
  volumes: (): string[] => readSetting('volumesList'),
  pageSize: (): number => readSetting('volumesPageSize'),
  defaultModel: (): string => readSetting('chatDefaultModel') || settings.models()[0] || '',
  models: (): string[] => readSetting('chatModels'),
  reasoningModels: (): string[] => readSetting('chatReasoningModels'),
  /** `ksm.chat.outputFormat`: the answer format of a conversation that chose none. */
  outputFormat: (): 'chat' | 'responses' => readSetting('chatOutputFormat'),
  showVscodeChatModels: (): boolean => readSetting('vscodeChatShowModels'),
  agentId: (): string => readSetting('agentId'),
  agentModel: (): string => readSetting('agentModel') || settings.defaultModel(),
  embeddingModel: (): string => readSetting('uploadEmbeddingModel'),
  doChunking: (): 0 | 1 | 2 => readSetting('uploadDoChunking'),
  /** Ask the processing (do_chunking) at every upload, even for a volume that remembers one. */
  askProcessing: (): boolean => readSetting('uploadAskProcessing'),
  uploadExclude: (): string[] => readSetting('uploadExclude'),
  maxFileSizeBytes: (): number => readSetting('uploadMaxFileSizeMB') * 1024 * 1024,
  timeoutMs: (): number => readSetting('requestTimeoutSeconds') * 1000,
  caBundle: (): string => readSetting('networkCaBundle'),
  logRequests: (): boolean => readSetting('debugLogRequests'),
  /** 0..1: the share of a volume one sync may delete without an extra confirmation. */
  syncDeleteGuardShare: (): number => readSetting('syncDeleteGuardPercent') / 100,
  syncWatchDelayMs: (): number => readSetting('syncWatchDelayMs'),
};

/** The personal volume name `{<user_id>}`, or undefined when no user id is set. */
export function personalVolume(): string | undefined {
  return personalVolumeName(settings.userId());
}

/** How a message names `volume`: "My files" for the user's personal volume (volumeTargets.ts). */
export function shownVolume(volume: string): string {
  return volumeDisplayName(volume, personalVolume());
}

/** Writes a setting of the table (`key` without `ksm.`), by default in the user's settings. */
export async function updateSetting(key: string, value: unknown, target = vscode.ConfigurationTarget.Global): Promise<void> {
  if (!settingByKey(`ksm.${key}`)) throw new Error(`'ksm.${key}' is not a setting of the settings table.`);
  await vscode.workspace.getConfiguration('ksm').update(key, value, target);
}

/** The current value of a table setting in one scope (for commands that edit a list in the scope that holds it). */
export function inspectSetting<N extends SettingName>(name: N): { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined {
  return vscode.workspace.getConfiguration().inspect<unknown>(SETTINGS[name].key);
}
