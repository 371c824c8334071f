// The ⚙ form's values, checked before `setParameters` is posted so the user sees the problem
// next to the field instead of a 400 after sending. Every field, its kind and its rule come
// from the one parameter table (src/api/chatParameterLimits.ts), which the host and the
// client check too, so the form never posts what the host would drop. The words (labels,
// problems, the badge's names) are the UI language's, from src/common/core/parameterText.ts.
import type { ChatParameters } from '../chat/protocol';
import { CHAT_PARAMETER_NAMES, effortAndBudgetProblem, parameterRule, type ChatParameterName } from '../api/chatParameterLimits';
import { effortAndBudgetText, parameterText } from '../common/core/parameterText';
import { uiLanguage } from './locale';

/** The form's text, one string per parameter. */
export type ParameterForm = Record<ChatParameterName, string>;

export type ParameterResult = { ok: true; parameters: ChatParameters } | { ok: false; errors: Partial<Record<ChatParameterName, string>> };

/** Empty fields mean "service default" and are left out; reasoning fields count only for a reasoning model. */
export function parseParameters(form: ParameterForm, reasoningModel: boolean): ParameterResult {
  const errors: Partial<Record<ChatParameterName, string>> = {};
  const parameters: Record<string, unknown> = {};
  for (const name of CHAT_PARAMETER_NAMES) {
    const rule = parameterRule(name);
    if (rule.section === 'reasoning' && !reasoningModel) continue;
    const text = form[name] ?? '';
    const value = valueOf(rule.input, text);
    if (value === undefined) continue;
    // Text that is not a number gets the same sentence as an out-of-range number.
    const problem = parameterText(name, uiLanguage()).problem(value ?? Number.NaN);
    if (problem) errors[name] = problem;
    else parameters[name] = value;
  }
  if (reasoningModel) {
    const bothProblem = effortAndBudgetProblem(form.reasoningEffort, form.reasoningBudget.trim());
    if (bothProblem) {
      errors.reasoningBudget = effortAndBudgetText();
      delete parameters.reasoningBudget;
    }
  }
  // Every value passed its own rule: the record is a ChatParameters.
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, parameters: parameters as ChatParameters };
}

/** undefined for an empty field (the default), null for text that is not a number. */
function valueOf(input: string, text: string): unknown {
  switch (input) {
    case 'number': {
      const trimmed = text.trim();
      if (!trimmed) return undefined;
      const value = Number(trimmed);
      return Number.isFinite(value) ? value : null;
    }
    case 'lines': {
      const lines = text.split(/\r?\n/).filter((line) => line !== '');
      return lines.length ? lines : undefined;
    }
    case 'text':
      return text.trim() ? text : undefined;
    default:
      return text === '' ? undefined : text;
  }
}

export function parametersToForm(parameters: ChatParameters): ParameterForm {
  const form = {} as ParameterForm;
  for (const name of CHAT_PARAMETER_NAMES) {
    const rule = parameterRule(name);
    const value = (parameters as Record<string, unknown>)[name];
    if (value === undefined) form[name] = rule.input === 'choice' ? (rule.choices?.[0]?.[0] ?? '') : '';
    else form[name] = Array.isArray(value) ? value.join('\n') : String(value);
  }
  return form;
}

/** The parameters that differ from the defaults, as "Name value"; reasoning only where it is sent (reasoning models). */
export function activeParameters(parameters: ChatParameters, reasoningModel: boolean): string[] {
  const active: string[] = [];
  for (const name of CHAT_PARAMETER_NAMES) {
    const rule = parameterRule(name);
    const value = (parameters as Record<string, unknown>)[name];
    if (value === undefined || (rule.section === 'reasoning' && !reasoningModel)) continue;
    const text = parameterText(name, uiLanguage()).active(value);
    if (text) active.push(text);
  }
  return active;
}
