// The reference's ranges (service-api.md, contract D12), checked before `setParameters` is
// posted so the user sees the problem next to the field instead of a 400 after sending.
import type { ChatParameters } from '../chat/protocol';

export interface ParameterForm {
  temperature: string;
  topP: string;
  maxTokens: string;
  systemPrompt: string;
  responseFormat: string;
  reasoningEffort: string;
  reasoningBudget: string;
}

export type ParameterResult = { ok: true; parameters: ChatParameters } | { ok: false; errors: Partial<Record<keyof ParameterForm, string>> };

const EFFORTS = ['low', 'medium', 'high'] as const;

/** Empty fields mean "service default" and are left out. */
export function parseParameters(form: ParameterForm, reasoningModel: boolean): ParameterResult {
  const errors: Partial<Record<keyof ParameterForm, string>> = {};
  const parameters: ChatParameters = {};

  const temperature = parseNumber(form.temperature);
  if (temperature === null) errors.temperature = 'Temperature must be a number from 0 to 2.';
  else if (temperature !== undefined) {
    if (temperature < 0 || temperature > 2) errors.temperature = 'Temperature must be from 0 to 2.';
    else parameters.temperature = temperature;
  }

  const topP = parseNumber(form.topP);
  if (topP === null) errors.topP = 'Top P must be a number above 0 and at most 1.';
  else if (topP !== undefined) {
    if (topP <= 0 || topP > 1) errors.topP = 'Top P must be above 0 and at most 1.';
    else parameters.topP = topP;
  }

  const maxTokens = parseNumber(form.maxTokens);
  if (maxTokens === null || (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1))) {
    errors.maxTokens = 'Max tokens must be a whole number of at least 1.';
  } else if (maxTokens !== undefined) parameters.maxTokens = maxTokens;

  if (form.systemPrompt.trim()) parameters.systemPrompt = form.systemPrompt;

  if (form.responseFormat === 'text' || form.responseFormat === 'json_object') parameters.responseFormat = form.responseFormat;
  else if (form.responseFormat) errors.responseFormat = 'Response format must be text or JSON object.';

  if (reasoningModel) {
    const effort = form.reasoningEffort;
    const budget = parseNumber(form.reasoningBudget);
    if (effort && !(EFFORTS as readonly string[]).includes(effort)) errors.reasoningEffort = 'Effort must be low, medium or high.';
    else if (effort) parameters.reasoningEffort = effort as ChatParameters['reasoningEffort'];
    if (budget === null || (budget !== undefined && (!Number.isInteger(budget) || budget < 1))) {
      errors.reasoningBudget = 'Reasoning budget must be a whole number of at least 1.';
    } else if (budget !== undefined) {
      // The service uses budget_tokens only when effort is unset (D12).
      if (effort) errors.reasoningBudget = 'Set either an effort or a token budget, not both.';
      else parameters.reasoningBudget = budget;
    }
  }

  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, parameters };
}

/** undefined for an empty field, null for text that is not a finite number. */
function parseNumber(text: string): number | undefined | null {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

export function parametersToForm(parameters: ChatParameters): ParameterForm {
  const text = (value: number | undefined) => (value === undefined ? '' : String(value));
  return {
    temperature: text(parameters.temperature),
    topP: text(parameters.topP),
    maxTokens: text(parameters.maxTokens),
    systemPrompt: parameters.systemPrompt ?? '',
    responseFormat: parameters.responseFormat ?? 'text',
    reasoningEffort: parameters.reasoningEffort ?? '',
    reasoningBudget: text(parameters.reasoningBudget),
  };
}
