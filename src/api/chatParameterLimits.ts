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
// Each check decides a refusal (`Refusal`: its kind and the bounds a sentence names), or
// undefined when the value is allowed. The words are not decided here: `refusalEnglish` gives
// the end of an English sentence after the field's name ("must be from 0 to 2.") for the CLI,
// the host's logs and the client's check, and the panel and VS Code's Chat word the same
// refusal in the UI language (src/common/core/parameterText.ts); each caller names the field
// its own way.

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

/** stop: a string, or up to 4 strings (the reference); each non-empty and bounded. */
export const STOP = { maxSequences: 4, maxChars: 256 } as const;
/** seed: an integer (-1 = a different result each time, as unset); bounded to what a JSON number holds exactly. */
export const SEED = { min: -1, max: Number.MAX_SAFE_INTEGER } as const;
/** The answer formats (`output_parser`, D16): the chat completions format, or the Responses interface. */
export const OUTPUT_FORMATS = ['chat', 'responses'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Why a value is refused, with the bounds the sentence names: the one decision, which each
 * front end words its own way (in English here, for the CLI and the client's request check;
 * in the UI language by src/common/core/parameterText.ts). Undefined means allowed.
 */
export type Refusal =
  | { kind: 'range'; min: number; max: number }
  | { kind: 'aboveAtMost'; above: number; max: number }
  | { kind: 'wholeAtLeast'; min: number }
  | { kind: 'atMost'; max: number }
  | { kind: 'text' }
  | { kind: 'atMostChars'; max: number }
  | { kind: 'oneOf'; values: readonly string[] }
  | { kind: 'sequenceCount'; max: number }
  | { kind: 'sequenceChars'; max: number }
  | { kind: 'wholeRange'; min: number; max: number };

function isNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

export function rangeRefusal(value: unknown, range: { readonly min: number; readonly max: number }): Refusal | undefined {
  return isNumber(value) && value >= range.min && value <= range.max ? undefined : { kind: 'range', min: range.min, max: range.max };
}

export function topPRefusal(value: unknown): Refusal | undefined {
  return isNumber(value) && value > TOP_P.above && value <= TOP_P.max ? undefined : { kind: 'aboveAtMost', above: TOP_P.above, max: TOP_P.max };
}

/** For max tokens and the reasoning budget. */
export function tokenCountRefusal(value: unknown): Refusal | undefined {
  if (!isNumber(value) || !Number.isInteger(value) || value < TOKEN_COUNT.min) return { kind: 'wholeAtLeast', min: TOKEN_COUNT.min };
  return value > TOKEN_COUNT.max ? { kind: 'atMost', max: TOKEN_COUNT.max } : undefined;
}

export function systemPromptRefusal(value: unknown): Refusal | undefined {
  if (typeof value !== 'string') return { kind: 'text' };
  return value.length > MAX_SYSTEM_PROMPT_CHARS ? { kind: 'atMostChars', max: MAX_SYSTEM_PROMPT_CHARS } : undefined;
}

export function stopRefusal(value: unknown): Refusal | undefined {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || list.length > STOP.maxSequences) return { kind: 'sequenceCount', max: STOP.maxSequences };
  return list.every((s) => typeof s === 'string' && s.length > 0 && s.length <= STOP.maxChars) ? undefined : { kind: 'sequenceChars', max: STOP.maxChars };
}

export function seedRefusal(value: unknown): Refusal | undefined {
  return isNumber(value) && Number.isInteger(value) && value >= SEED.min && value <= SEED.max ? undefined : { kind: 'wholeRange', min: SEED.min, max: SEED.max };
}

/** One of `values` (the empty value of a choice means "not set" and is not offered as an answer). */
export function oneOfRefusal(value: unknown, values: readonly string[]): Refusal | undefined {
  const allowed = values.filter(Boolean);
  return allowed.includes(value as string) ? undefined : { kind: 'oneOf', values: allowed };
}

/** The English end of the sentence after the field's name ("must be from 0 to 2."); `labels` names a choice's values. */
export function refusalEnglish(refusal: Refusal, labels: Readonly<Record<string, string>> = {}): string {
  switch (refusal.kind) {
    case 'range':
      return `must be from ${refusal.min} to ${refusal.max}.`;
    case 'aboveAtMost':
      return `must be above ${refusal.above} and at most ${refusal.max}.`;
    case 'wholeAtLeast':
      return `must be a whole number of at least ${refusal.min}.`;
    case 'atMost':
      return `must be at most ${refusal.max.toLocaleString('en-US')}.`;
    case 'text':
      return 'must be text.';
    case 'atMostChars':
      return `must be at most ${refusal.max.toLocaleString('en-US')} characters.`;
    case 'oneOf': {
      const names = refusal.values.map((value) => labels[value] ?? value);
      return `must be ${names.slice(0, -1).join(', ')}${names.length > 1 ? ' or ' : ''}${names.at(-1)}.`;
    }
    case 'sequenceCount':
      return `must be 1 to ${refusal.max} sequences.`;
    case 'sequenceChars':
      return `must be sequences of 1 to ${refusal.max} characters.`;
    case 'wholeRange':
      return `must be a whole number from ${refusal.min} to ${refusal.max}.`;
  }
}

const english = (refusal: Refusal | undefined): string | undefined => (refusal ? refusalEnglish(refusal) : undefined);

export function rangeProblem(value: unknown, range: { readonly min: number; readonly max: number }): string | undefined {
  return english(rangeRefusal(value, range));
}

export function temperatureProblem(value: unknown): string | undefined {
  return rangeProblem(value, TEMPERATURE);
}

export function topPProblem(value: unknown): string | undefined {
  return english(topPRefusal(value));
}

/** For max tokens and the reasoning budget. */
export function tokenCountProblem(value: unknown): string | undefined {
  return english(tokenCountRefusal(value));
}

export function reasoningEffortProblem(value: unknown): string | undefined {
  return english(oneOfRefusal(value, REASONING_EFFORTS));
}

export function systemPromptProblem(value: unknown): string | undefined {
  return english(systemPromptRefusal(value));
}

/** Effort and budget together are refused everywhere rather than one silently dropped. */
export function effortAndBudgetProblem(effort: unknown, budget: unknown): string | undefined {
  const isSet = (value: unknown) => value !== undefined && value !== null && value !== '';
  return isSet(effort) && isSet(budget) ? EFFORT_AND_BUDGET_PROBLEM : undefined;
}

export function stopProblem(value: unknown): string | undefined {
  return english(stopRefusal(value));
}

export function seedProblem(value: unknown): string | undefined {
  return english(seedRefusal(value));
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
  /** Why the value is refused (kind and bounds), or undefined when it is allowed: the one decision. */
  refusal(value: unknown): Refusal | undefined;
  /** The same in English: the end of the sentence after `label` ("must be from 0 to 2."). */
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

/** A rule from its refusal; its English problem follows (a choice named by its labels, unless the rule words it). */
const rule = <T>(spec: Omit<ParameterRule<T>, 'problem'> & Partial<Pick<ParameterRule<T>, 'problem'>>): ParameterRule<T> => {
  const labels = Object.fromEntries(spec.choices ?? []);
  const problem = (value: unknown) => {
    const why = spec.refusal(value);
    return why ? refusalEnglish(why, labels) : undefined;
  };
  return { ...spec, problem: spec.problem ?? problem };
};
const choiceValues = (choices: readonly (readonly [string, string])[]): string[] => choices.map(([value]) => value);

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
    refusal: (value) => rangeRefusal(value, TEMPERATURE),
    wire: 'temperature',
  }),
  topP: rule<number>({
    label: 'Top P',
    formLabel: `Top P (${TOP_P.above}–${TOP_P.max})`,
    section: 'main',
    input: 'number',
    range: { min: TOP_P.above, max: TOP_P.max, step: 0.05 },
    placeholder: 'default 0.75',
    refusal: topPRefusal,
    wire: 'top_p',
  }),
  maxTokens: rule<number>({
    label: 'Max tokens',
    section: 'main',
    input: 'number',
    range: { min: TOKEN_COUNT.min, max: TOKEN_COUNT.max, step: 1 },
    placeholder: 'no limit',
    refusal: tokenCountRefusal,
    wire: 'max_completion_tokens',
  }),
  systemPrompt: rule<string>({
    label: 'System prompt',
    section: 'main',
    input: 'text',
    placeholder: 'none',
    refusal: systemPromptRefusal,
    active: (value) => (value.trim() ? 'System prompt' : undefined),
  }),
  responseFormat: rule<(typeof CHAT_RESPONSE_FORMATS)[number]>({
    label: 'Response format',
    section: 'main',
    input: 'choice',
    choices: RESPONSE_FORMAT_CHOICES,
    refusal: (value) => oneOfRefusal(value, choiceValues(RESPONSE_FORMAT_CHOICES)),
    wire: 'response_format',
    toWire: (value) => (value === 'json_object' ? { type: 'json_object' } : undefined),
    active: (value) => (value === 'json_object' ? 'JSON response' : undefined),
  }),
  outputFormat: rule<OutputFormat>({
    label: 'Answer format',
    section: 'main',
    input: 'choice',
    choices: OUTPUT_FORMAT_CHOICES,
    refusal: (value) => oneOfRefusal(value, choiceValues(OUTPUT_FORMAT_CHOICES)),
    wire: 'output_parser',
    toWire: (value) => (value === 'responses' ? 'responses' : undefined),
    active: (value) => (value === 'responses' ? 'Responses format' : 'Chat format'),
  }),
  reasoningEffort: rule<ReasoningEffort>({
    label: 'Reasoning effort',
    section: 'reasoning',
    input: 'choice',
    choices: EFFORT_CHOICES,
    refusal: (value) => oneOfRefusal(value, REASONING_EFFORTS),
    // The CLI's --reasoning-effort takes the values as typed: low, medium, high.
    problem: reasoningEffortProblem,
  }),
  reasoningBudget: rule<number>({
    label: 'Reasoning budget',
    formLabel: 'Reasoning budget (tokens)',
    section: 'reasoning',
    input: 'number',
    range: { min: TOKEN_COUNT.min, max: TOKEN_COUNT.max, step: 1 },
    placeholder: 'maximum',
    refusal: tokenCountRefusal,
  }),
  stop: rule<string[]>({
    label: 'Stop sequences',
    formLabel: `Stop sequences (one per line, up to ${STOP.maxSequences})`,
    section: 'advanced',
    input: 'lines',
    placeholder: 'none',
    refusal: stopRefusal,
    wire: 'stop',
    active: (value) => `Stop ${value.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  seed: rule<number>({ label: 'Seed', section: 'advanced', input: 'number', range: { min: SEED.min, max: SEED.max, step: 1 }, placeholder: 'random', refusal: seedRefusal, wire: 'seed' }),
  frequencyPenalty: rule<number>({
    label: 'Frequency penalty',
    formLabel: `Frequency penalty (${FREQUENCY_PENALTY.min}–${FREQUENCY_PENALTY.max})`,
    section: 'advanced',
    input: 'number',
    range: { min: FREQUENCY_PENALTY.min, max: FREQUENCY_PENALTY.max, step: 0.1 },
    placeholder: 'default 0',
    refusal: (value) => rangeRefusal(value, FREQUENCY_PENALTY),
    wire: 'frequency_penalty',
  }),
  repetitionPenalty: rule<number>({
    label: 'Repetition penalty',
    formLabel: `Repetition penalty (${REPETITION_PENALTY.min}–${REPETITION_PENALTY.max})`,
    section: 'advanced',
    input: 'number',
    range: { min: REPETITION_PENALTY.min, max: REPETITION_PENALTY.max, step: 0.1 },
    placeholder: 'default 1',
    refusal: (value) => rangeRefusal(value, REPETITION_PENALTY),
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
 * Why a whole set of parameters is refused, or undefined: a name the table does not have, a
 * value its rule refuses (with the refusal), or effort and budget together. The one judgement
 * of a set: `parametersProblem` says it in English, src/common/core/parameterText.ts
 * (`parametersProblemText`) in the UI language.
 */
export type ParametersRefusal = { kind: 'unknown'; name: string } | { kind: 'value'; name: ChatParameterName; refusal: Refusal } | { kind: 'effortAndBudget'; name: 'reasoningBudget' };

export function parametersRefusal(parameters: Readonly<Record<string, unknown>>): ParametersRefusal | undefined {
  for (const [name, value] of Object.entries(parameters)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(CHAT_PARAMETERS, name)) return { kind: 'unknown', name };
    const refusal = parameterRule(name as ChatParameterName).refusal(value);
    if (refusal) return { kind: 'value', name: name as ChatParameterName, refusal };
  }
  return effortAndBudgetProblem(parameters.reasoningEffort, parameters.reasoningBudget) ? { kind: 'effortAndBudget', name: 'reasoningBudget' } : undefined;
}

/**
 * The problem of a whole set of parameters, in English ("Label must …"), or undefined: for
 * the CLI and the host's logs. Every layer (the form, the host, the CLI, VS Code's Chat)
 * judges a set with `parametersRefusal`; what a user of the editor reads is worded in the UI
 * language by src/common/core/parameterText.ts.
 */
export function parametersProblem(parameters: Record<string, unknown>): { name: string; message: string } | undefined {
  const refused = parametersRefusal(parameters);
  if (!refused) return undefined;
  switch (refused.kind) {
    case 'unknown':
      return { name: refused.name, message: `${refused.name} is not a chat parameter.` };
    case 'effortAndBudget':
      return { name: refused.name, message: EFFORT_AND_BUDGET_PROBLEM };
    case 'value': {
      const rule = parameterRule(refused.name);
      return { name: refused.name, message: `${rule.label} ${rule.problem(parameters[refused.name])}` };
    }
  }
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
