import * as vscode from 'vscode';
import type { OutputFormat } from '../../api/chatParameterLimits';
import type { DoChunking } from '../../api/types';
import { volumeDisplayName } from '../core/volumeTargets';

/** Typed, read-at-call-time access to the `ksm.*` settings (never cached: users edit them live). */
export const settings = {
  baseUrl: (): string => get<string>('baseUrl', '').trim().replace(/\/+$/, ''),
  userId: (): string => get<string>('userId', '').trim(),
  volumes: (): string[] => uniqueStrings(get<string[]>('volumes.list', [])),
  pageSize: (): number => clampInt(get<number>('volumes.pageSize', 50), 1, 1000),
  defaultModel: (): string => get<string>('chat.defaultModel', '').trim() || settings.models()[0] || '',
  models: (): string[] => uniqueStrings(get<string[]>('chat.models', [])),
  reasoningModels: (): string[] => uniqueStrings(get<string[]>('chat.reasoningModels', [])),
  /** `ksm.chat.outputFormat`: anything but `responses` is the chat format. */
  outputFormat: (): OutputFormat => (get<string>('chat.outputFormat', 'chat') === 'responses' ? 'responses' : 'chat'),
  agentId: (): string => get<string>('agent.id', 'rag-agent').trim() || 'rag-agent',
  agentModel: (): string => get<string>('agent.model', '').trim() || settings.defaultModel(),
  embeddingModel: (): string => get<string>('upload.embeddingModel', '').trim(),
  doChunking: (): DoChunking => {
    const value = get<number>('upload.doChunking', 1);
    return value === 0 || value === 2 ? value : 1;
  },
  /** Ask the processing (do_chunking) at every upload, even for a volume that remembers one. */
  askProcessing: (): boolean => get<boolean>('upload.askProcessing', false),
  uploadExclude: (): string[] => uniqueStrings(get<string[]>('upload.exclude', [])),
  maxFileSizeBytes: (): number => Math.max(0, get<number>('upload.maxFileSizeMB', 100)) * 1024 * 1024,
  timeoutMs: (): number => Math.max(1, get<number>('request.timeoutSeconds', 60)) * 1000,
  caBundle: (): string => get<string>('network.caBundle', '').trim(),
  logRequests: (): boolean => get<boolean>('debug.logRequests', false),
};

/** The personal volume name `{<user_id>}`, or undefined when no user id is set. */
export function personalVolume(): string | undefined {
  const id = settings.userId();
  return id ? `{${id}}` : undefined;
}

/** How a message names `volume`: "My files" for the user's personal volume (volumeTargets.ts). */
export function shownVolume(volume: string): string {
  return volumeDisplayName(volume, personalVolume());
}

export async function updateSetting(key: string, value: unknown, target = vscode.ConfigurationTarget.Global): Promise<void> {
  await vscode.workspace.getConfiguration('ksm').update(key, value, target);
}

function get<T>(key: string, fallback: T): T {
  return vscode.workspace.getConfiguration('ksm').get<T>(key, fallback) ?? fallback;
}

function uniqueStrings(values: unknown): string[] {
  if (!Array.isArray(values)) return [];
  return [...new Set(values.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter(Boolean))];
}

function clampInt(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(Number.isFinite(value) ? value : min)));
}
