// What the model picker offers: the models used recently (newest first), then every model the
// settings name (`ksm.chat.models`, the default, the agent's and the reasoning models), each
// once, the conversation's own model always among them. Free entry stays possible: any id
// that passes `modelIdProblem` may be typed. No `vscode`, so it is tested under plain mocha.
import * as l10n from '@vscode/l10n';
import type { ModelOptions } from './conversationModel';
import { storedList, withRecent } from '../../common/core/storedState';

export const MAX_MODEL_ID_CHARS = 200;
/** How many recently used models are remembered. */
export const MAX_RECENT_MODELS = 8;

export interface ModelChoice {
  model: string;
  group: 'recent' | 'settings';
  /** Why the model is listed besides being there: shown next to it. */
  notes: string[];
}

/** Why `value` cannot be a model id, or undefined when it can (the host checks the webview's ids the same way). */
export function modelIdProblem(value: string): string | undefined {
  const id = value.trim();
  if (!id) return l10n.t('Type a model id.');
  if (id.length > MAX_MODEL_ID_CHARS) return l10n.t('A model id has at most {0} characters.', MAX_MODEL_ID_CHARS);
  // Control characters and spaces are exactly what this check looks for.
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(id)) return l10n.t('A model id has no spaces or control characters.');
  return undefined;
}

export function modelChoices(options: ModelOptions, recent: readonly string[], current: string): ModelChoice[] {
  const notesOf = (model: string): string[] => [
    ...(model === current ? ['current'] : []),
    ...(model === options.defaultModel ? [l10n.t('default for new chats')] : []),
    ...(options.reasoningModels.includes(model) ? ['reasoning'] : []),
  ];
  const seen = new Set<string>();
  const choices: ModelChoice[] = [];
  const add = (model: string, group: ModelChoice['group']) => {
    if (!model || seen.has(model) || modelIdProblem(model)) return;
    seen.add(model);
    choices.push({ model, group, notes: notesOf(model) });
  };
  // A model typed before (or set by an older version) is listed even if it was never picked here.
  const recentFirst = current && !recent.includes(current) && !configured(options).includes(current) ? [current, ...recent] : recent;
  for (const model of recentFirst) add(model, 'recent');
  for (const model of configured(options)) add(model, 'settings');
  return choices;
}

/**
 * The remembered list after `model` was picked: it first, each model once, at most
 * MAX_RECENT_MODELS, then the entries this version does not read, unchanged (a later version's;
 * storedState.ts). Undefined when what is stored is not a list: leave it as it is.
 */
export function withRecentModel(stored: unknown, model: string): unknown[] | undefined {
  return withRecent(stored, model, MAX_RECENT_MODELS, isModelId);
}

/** What globalState holds, checked (another version may have written another shape). */
export function parseRecentModels(stored: unknown): string[] {
  return (storedList(stored, isModelId)?.known ?? []).slice(0, MAX_RECENT_MODELS);
}

function isModelId(value: unknown): value is string {
  return typeof value === 'string' && modelIdProblem(value) === undefined;
}

function configured(options: ModelOptions): string[] {
  return [...options.models, options.defaultModel, options.agentModel, ...options.reasoningModels].filter(Boolean);
}
