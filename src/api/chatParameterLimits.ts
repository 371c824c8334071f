// The chat parameter limits of the service reference (docs/service-contract.md, D12), written
// once. Three places check them and must agree: the webview's Parameters form
// (src/webview/parameterRules.ts), the host's check of webview messages
// (src/chat/panel/messageValidation.ts) and the client's check of every request
// (src/api/validate.ts); test/api/chatParameterLimits.test.ts runs one table through all three.
//
// It lives in src/api because the client owns the request rules and must not depend on the
// chat feature. It imports nothing, so the webview bundle may import it too
// (eslint.config.mjs allows exactly this file and refuses any import in it).
//
// Each check returns the end of a sentence that follows the field's name ("must be from 0
// to 2."), or undefined when the value is allowed; each caller names the field its own way
// (the form's label, the wire field).

export const TEMPERATURE = { min: 0, max: 2 } as const;
/** top_p is above 0 (0 itself is refused) and at most 1. */
export const TOP_P = { above: 0, max: 1 } as const;
export const FREQUENCY_PENALTY = { min: -2, max: 2 } as const;
export const REPETITION_PENALTY = { min: 0, max: 2 } as const;
/**
 * max_completion_tokens and reasoning.budget_tokens: whole numbers from 1. The upper bound
 * is ours, not the reference's: no model writes ten million tokens, and it keeps a number
 * from an untrusted webview bounded.
 */
export const TOKEN_COUNT = { min: 1, max: 10_000_000 } as const;
/** The system prompt is one message; the same bound as any message the user sends. */
export const MAX_SYSTEM_PROMPT_CHARS = 100_000;

export const REASONING_EFFORTS = ['low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
/** The response formats the chat panel offers; the client also passes `json_schema` (with a schema). */
export const CHAT_RESPONSE_FORMATS = ['text', 'json_object'] as const;

/** The service uses budget_tokens only when effort is null (D12): one of the two, never both. */
export const EFFORT_AND_BUDGET_PROBLEM = 'Set either a reasoning effort or a reasoning token budget, not both: the service ignores the budget when an effort is set.';

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function rangeProblem(value: unknown, range: { readonly min: number; readonly max: number }): string | undefined {
  return isNumber(value) && value >= range.min && value <= range.max ? undefined : `must be from ${range.min} to ${range.max}.`;
}

export function temperatureProblem(value: unknown): string | undefined {
  return rangeProblem(value, TEMPERATURE);
}

export function topPProblem(value: unknown): string | undefined {
  return isNumber(value) && value > TOP_P.above && value <= TOP_P.max ? undefined : `must be above ${TOP_P.above} and at most ${TOP_P.max}.`;
}

/** For max tokens and the reasoning budget. */
export function tokenCountProblem(value: unknown): string | undefined {
  if (!isNumber(value) || !Number.isInteger(value) || value < TOKEN_COUNT.min) return `must be a whole number of at least ${TOKEN_COUNT.min}.`;
  return value > TOKEN_COUNT.max ? `must be at most ${TOKEN_COUNT.max.toLocaleString('en-US')}.` : undefined;
}

export function reasoningEffortProblem(value: unknown): string | undefined {
  return (REASONING_EFFORTS as readonly unknown[]).includes(value) ? undefined : 'must be low, medium or high.';
}

export function systemPromptProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be text.';
  return value.length > MAX_SYSTEM_PROMPT_CHARS ? `must be at most ${MAX_SYSTEM_PROMPT_CHARS.toLocaleString('en-US')} characters.` : undefined;
}

/** Effort and budget together are refused everywhere rather than one silently dropped. */
export function effortAndBudgetProblem(effort: unknown, budget: unknown): string | undefined {
  const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';
  return isSet(effort) && isSet(budget) ? EFFORT_AND_BUDGET_PROBLEM : undefined;
}
