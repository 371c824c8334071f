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

/** stop: a string, or up to 4 strings (the reference); each non-empty and bounded. */
export const STOP = { maxSequences: 4, maxChars: 256 } as const;
/** seed: an integer (-1 = a different result each time, as unset); bounded to what a JSON number holds exactly. */
export const SEED = { min: -1, max: Number.MAX_SAFE_INTEGER } as const;
/** The answer formats (`output_parser`, D16): the chat completions format, or the Responses interface. */
export const OUTPUT_FORMATS = ['chat', 'responses'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function stopProblem(value: unknown): string | undefined {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > STOP.maxSequences) return `must be 1 to ${STOP.maxSequences} sequences.`;
  return list.every((s) => typeof s === 'string' && s.length > 0 && s.length <= STOP.maxChars) ? undefined : `must be sequences of 1 to ${STOP.maxChars} characters.`;
}

export function seedProblem(value: unknown): string | undefined {
  return isNumber(value) && Number.isInteger(value) && value >= SEED.min && value <= SEED.max ? undefined : `must be a whole number from ${SEED.min} to ${SEED.max}.`;
}

function choiceProblem(choices: readonly (readonly [string, string])[]): (value: unknown) => string | undefined {
  const allowed = choices.map(([value]) => value).filter(Boolean);
  const labels = choices.filter(([value]) => value).map(([, label]) => label);
  return (value) => (allowed.includes(value as string) ? undefined : `must be ${labels.slice(0, -1).join(', ')}${labels.length > 1 ? ' or ' : ''}${labels.at(-1)}.`);
}

// ---- The one table of chat parameters ----
//
// Each per-conversation chat parameter is declared here once. From this table come: the type
// of the conversation's parameters (ChatParameters, which the engine and the webview share),
// the ⚙ form's fields and their checks (src/webview/parameterRules.ts, parametersPopover.ts),
// the host's check of the webview's message (src/chat/panel/messageValidation.ts), the wire
// field the request builder fills (src/chat/core/requestBuilder.ts) and the client's check of
// that field (src/api/validate.ts). A simple new parameter is one entry here (and its wire
// field in src/api/types.ts).

export interface ParameterRule<T> {
  /** The field's name in the form and in its messages ("Temperature must be …"). */
  label: string;
  /** The form's label when it says more than the name (a range). */
  formLabel?: string;
  /** Where ⚙ shows it: the main fields, the reasoning group (reasoning models only), or Advanced. */
  section: 'main' | 'reasoning' | 'advanced';
  /** How the form reads it: a number, free text, one value per line, or one of `choices`. */
  input: 'number' | 'text' | 'lines' | 'choice';
  /** For `choice`: [value, label]; the first is what an untouched form shows. */
  choices?: readonly (readonly [string, string])[];
  /** For `number`: the input's bounds and step. */
  range?: { min: number; max: number; step: number };
  placeholder?: string;
  /** The end of the sentence after `label`, or undefined when the value is allowed. */
  problem(value: unknown): string | undefined;
  /**
   * The request body field the value goes to, when it goes there as it is (or as `toWire`
   * makes it); absent for the ones the request builder shapes itself (system prompt, reasoning).
   */
  wire?: string;
  /** The wire value, or undefined to send nothing (a choice that means "the default"). */
  toWire?(value: T): unknown;
  /** How ⚙'s badge names it when set; undefined = not worth naming. Default "Label value". */
  active?(value: T): string | undefined;
  /** Type only: the value's type. */
  readonly valueType?: T;
}

const rule = <T>(spec: ParameterRule<T>): ParameterRule<T> => spec;

const RESPONSE_FORMAT_CHOICES = [
  ['text', 'Text'],
  ['json_object', 'JSON object'],
] as const;
const OUTPUT_FORMAT_CHOICES = [
  ['', 'Default (setting)'],
  ['chat', 'Chat completions'],
  ['responses', 'Responses'],
] as const;
const EFFORT_CHOICES = [
  ['', 'Not set (use budget)'],
  ['low', 'Low'],
  ['medium', 'Medium'],
  ['high', 'High'],
] as const;

export const CHAT_PARAMETERS = {
  temperature: rule<number>({
    label: 'Temperature',
    formLabel: `Temperature (${TEMPERATURE.min}–${TEMPERATURE.max})`,
    section: 'main',
    input: 'number',
    range: { min: TEMPERATURE.min, max: TEMPERATURE.max, step: 0.1 },
    placeholder: 'default 0.3',
    problem: temperatureProblem,
    wire: 'temperature',
  }),
  topP: rule<number>({
    label: 'Top P',
    formLabel: `Top P (${TOP_P.above}–${TOP_P.max})`,
    section: 'main',
    input: 'number',
    range: { min: TOP_P.above, max: TOP_P.max, step: 0.05 },
    placeholder: 'default 0.75',
    problem: topPProblem,
    wire: 'top_p',
  }),
  maxTokens: rule<number>({
    label: 'Max tokens',
    section: 'main',
    input: 'number',
    range: { min: TOKEN_COUNT.min, max: TOKEN_COUNT.max, step: 1 },
    placeholder: 'no limit',
    problem: tokenCountProblem,
    wire: 'max_completion_tokens',
  }),
  systemPrompt: rule<string>({
    label: 'System prompt',
    section: 'main',
    input: 'text',
    placeholder: 'none',
    problem: systemPromptProblem,
    active: (value) => (value.trim() ? 'System prompt' : undefined),
  }),
  responseFormat: rule<(typeof CHAT_RESPONSE_FORMATS)[number]>({
    label: 'Response format',
    section: 'main',
    input: 'choice',
    choices: RESPONSE_FORMAT_CHOICES,
    problem: choiceProblem(RESPONSE_FORMAT_CHOICES),
    wire: 'response_format',
    toWire: (value) => (value === 'json_object' ? { type: 'json_object' } : undefined),
    active: (value) => (value === 'json_object' ? 'JSON response' : undefined),
  }),
  outputFormat: rule<OutputFormat>({
    label: 'Answer format',
    section: 'main',
    input: 'choice',
    choices: OUTPUT_FORMAT_CHOICES,
    problem: choiceProblem(OUTPUT_FORMAT_CHOICES),
    wire: 'output_parser',
    toWire: (value) => (value === 'responses' ? 'responses' : undefined),
    active: (value) => (value === 'responses' ? 'Responses format' : 'Chat format'),
  }),
  reasoningEffort: rule<ReasoningEffort>({ label: 'Reasoning effort', section: 'reasoning', input: 'choice', choices: EFFORT_CHOICES, problem: reasoningEffortProblem }),
  reasoningBudget: rule<number>({
    label: 'Reasoning budget',
    formLabel: 'Reasoning budget (tokens)',
    section: 'reasoning',
    input: 'number',
    range: { min: TOKEN_COUNT.min, max: TOKEN_COUNT.max, step: 1 },
    placeholder: 'maximum',
    problem: tokenCountProblem,
  }),
  stop: rule<string[]>({
    label: 'Stop sequences',
    formLabel: `Stop sequences (one per line, up to ${STOP.maxSequences})`,
    section: 'advanced',
    input: 'lines',
    placeholder: 'none',
    problem: stopProblem,
    wire: 'stop',
    active: (value) => `Stop ${value.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  seed: rule<number>({ label: 'Seed', section: 'advanced', input: 'number', range: { min: SEED.min, max: SEED.max, step: 1 }, placeholder: 'random', problem: seedProblem, wire: 'seed' }),
  frequencyPenalty: rule<number>({
    label: 'Frequency penalty',
    formLabel: `Frequency penalty (${FREQUENCY_PENALTY.min}–${FREQUENCY_PENALTY.max})`,
    section: 'advanced',
    input: 'number',
    range: { min: FREQUENCY_PENALTY.min, max: FREQUENCY_PENALTY.max, step: 0.1 },
    placeholder: 'default 0',
    problem: (value) => rangeProblem(value, FREQUENCY_PENALTY),
    wire: 'frequency_penalty',
  }),
  repetitionPenalty: rule<number>({
    label: 'Repetition penalty',
    formLabel: `Repetition penalty (${REPETITION_PENALTY.min}–${REPETITION_PENALTY.max})`,
    section: 'advanced',
    input: 'number',
    range: { min: REPETITION_PENALTY.min, max: REPETITION_PENALTY.max, step: 0.1 },
    placeholder: 'default 1',
    problem: (value) => rangeProblem(value, REPETITION_PENALTY),
    wire: 'repetition_penalty',
  }),
};

export type ChatParameterName = keyof typeof CHAT_PARAMETERS;

/** Per-conversation request parameters of chat mode (D12): one optional field per entry of CHAT_PARAMETERS. */
export type ChatParameters = { [K in ChatParameterName]?: NonNullable<(typeof CHAT_PARAMETERS)[K]['valueType']> };

export const CHAT_PARAMETER_NAMES = Object.keys(CHAT_PARAMETERS) as ChatParameterName[];

/** A parameter's rule, typed loosely for code that walks the whole table. */
export function parameterRule(name: ChatParameterName): ParameterRule<unknown> {
  return CHAT_PARAMETERS[name] as ParameterRule<unknown>;
}

/**
 * The problem of a whole set of parameters, as "Label must …", or undefined. Every layer
 * (the form, the host, the CLI, VS Code's Chat) judges a set with this one function.
 */
export function parametersProblem(parameters: Record<string, unknown>): { name: string; message: string } | undefined {
  for (const [name, value] of Object.entries(parameters)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(CHAT_PARAMETERS, name)) return { name, message: `${name} is not a chat parameter.` };
    const rule = parameterRule(name as ChatParameterName);
    const problem = rule.problem(value);
    if (problem) return { name, message: `${rule.label} ${problem}` };
  }
  const both = effortAndBudgetProblem(parameters.reasoningEffort, parameters.reasoningBudget);
  return both ? { name: 'reasoningBudget', message: both } : undefined;
}

/** The wire fields the table fills as they are, for the client's check: [wire name, rule]. */
export function wireRules(): Array<[string, ParameterRule<unknown>]> {
  return CHAT_PARAMETER_NAMES.map(parameterRule)
    .filter((r) => r.wire && !r.toWire)
    .map((r) => [r.wire!, r]);
}

/** The request body fields a set of parameters fills as the table says (not system prompt or reasoning, which the builder shapes). */
export function wireFields(parameters: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of CHAT_PARAMETER_NAMES) {
    const rule = parameterRule(name);
    const value = parameters[name];
    if (value === undefined || !rule.wire) continue;
    const sent = rule.toWire ? rule.toWire(value) : value;
    if (sent !== undefined) out[rule.wire] = sent;
  }
  return out;
}
