// The reference's ranges (docs/service-contract.md, D12), checked before `setParameters` is
// posted so the user sees the problem next to the field instead of a 400 after sending.
// The limits and their wording come from src/api/chatParameterLimits.ts, which the host and
// the client check too, so the form never posts what the host would drop.
import type { ChatParameters } from '../chat/protocol';
import {
  CHAT_RESPONSE_FORMATS,
  effortAndBudgetProblem,
  reasoningEffortProblem,
  systemPromptProblem,
  temperatureProblem,
  tokenCountProblem,
  topPProblem,
  type ReasoningEffort,
} from '../api/chatParameterLimits';

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

/** How each field is named in its error message. */
const NAMES: Record<keyof ParameterForm, string> = {
  temperature: 'Temperature',
  topP: 'Top P',
  maxTokens: 'Max tokens',
  systemPrompt: 'System prompt',
  responseFormat: 'Response format',
  reasoningEffort: 'Reasoning effort',
  reasoningBudget: 'Reasoning budget',
};

/** Empty fields mean "service default" and are left out. */
export function parseParameters(form: ParameterForm, reasoningModel: boolean): ParameterResult {
  const errors: Partial<Record<keyof ParameterForm, string>> = {};
  const parameters: ChatParameters = {};
  /** The parsed number of a numeric field if it passes `problemOf`, else records the error. */
  const numberField = (field: 'temperature' | 'topP' | 'maxTokens' | 'reasoningBudget', problemOf: (value: unknown) => string | undefined): number | undefined => {
    const value = parseNumber(form[field]);
    if (value === undefined) return undefined;
    // Text that is not a number gets the same sentence as an out-of-range number.
    const problem = problemOf(value ?? Number.NaN);
    if (problem) errors[field] = `${NAMES[field]} ${problem}`;
    return problem ? undefined : (value as number);
  };

  const temperature = numberField('temperature', temperatureProblem);
  if (temperature !== undefined) parameters.temperature = temperature;
  const topP = numberField('topP', topPProblem);
  if (topP !== undefined) parameters.topP = topP;
  const maxTokens = numberField('maxTokens', tokenCountProblem);
  if (maxTokens !== undefined) parameters.maxTokens = maxTokens;

  if (form.systemPrompt.trim()) {
    const problem = systemPromptProblem(form.systemPrompt);
    if (problem) errors.systemPrompt = `${NAMES.systemPrompt} ${problem}`;
    else parameters.systemPrompt = form.systemPrompt;
  }

  if ((CHAT_RESPONSE_FORMATS as readonly string[]).includes(form.responseFormat)) parameters.responseFormat = form.responseFormat as ChatParameters['responseFormat'];
  else if (form.responseFormat) errors.responseFormat = 'Response format must be text or JSON object.';

  if (reasoningModel) {
    const effort = form.reasoningEffort;
    const effortProblem = effort ? reasoningEffortProblem(effort) : undefined;
    if (effortProblem) errors.reasoningEffort = `${NAMES.reasoningEffort} ${effortProblem}`;
    else if (effort) parameters.reasoningEffort = effort as ReasoningEffort;
    const budget = numberField('reasoningBudget', tokenCountProblem);
    const bothProblem = effortAndBudgetProblem(effort, form.reasoningBudget.trim());
    if (bothProblem) errors.reasoningBudget = bothProblem;
    else if (budget !== undefined) parameters.reasoningBudget = budget;
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
