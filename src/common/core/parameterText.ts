// The words of the chat parameters in the UI language, for both bundles (issue 26): each
// parameter's name, form label, placeholder, choice labels, its refusal as a sentence, and
// how the ⚙ badge names it. The one parameter table (src/api/chatParameterLimits.ts) stays
// the source of the rules, the bounds and which values are allowed (`rule.refusal(value)` and
// `parametersRefusal` decide and name the kind of refusal with its bounds); this file only
// words them. The ⚙ form of the chat webview (src/webview/parameterRules.ts,
// parametersPopover.ts) and the extension host (VS Code's Chat refusing a caller's
// `modelOptions`, src/nativeChat/core/modelResponse.ts) both say them from here, so a refusal
// reads the same in the panel and in VS Code's Chat. The table itself imports nothing, so its
// English words (`refusalEnglish`) serve the CLI, the client's request check and the logs.
//
// Both bundles include this file, so it imports only `@vscode/l10n` and the parameter table
// (eslint.config.mjs, SHARED_WORDING): no DOM, no Node, no vscode. Strings go through `l10n.t`
// (the webview's bundle from its bootstrap, the host's from `configureCoreL10n`); numbers and
// lists through Intl in the `language` each caller passes (the webview's `uiLanguage()`, the
// host's `vscode.env.language`). A parameter added to the table fails to compile until it has
// its words in WORDS.
import * as l10n from '@vscode/l10n';
import { FREQUENCY_PENALTY, parameterRule, parametersRefusal, REPETITION_PENALTY, STOP, TEMPERATURE, TOP_P, type ChatParameterName, type Refusal } from '../../api/chatParameterLimits';

// ---- Numbers and lists in a language (Intl), for the webview and the host alike ----

interface IntlFormats {
  number: Intl.NumberFormat;
  orList: Intl.ListFormat;
  plainList: Intl.ListFormat;
}

function makeFormats(language: string): IntlFormats {
  return {
    number: new Intl.NumberFormat(language),
    orList: new Intl.ListFormat(language, { type: 'disjunction' }),
    plainList: new Intl.ListFormat(language, { type: 'unit', style: 'short' }),
  };
}

const formats = new Map<string, IntlFormats>();

/** Intl's formats for `language`; a tag Intl does not know falls back to English formats rather than failing. */
function formatsFor(language: string): IntlFormats {
  let found = formats.get(language);
  if (!found) {
    try {
      found = makeFormats(language);
    } catch {
      found = makeFormats('en');
    }
    formats.set(language, found);
  }
  return found;
}

export function formatNumber(value: number, language: string): string {
  return formatsFor(language).number.format(value);
}

/** "a, b or c" in `language`. */
export function formatOrList(items: readonly string[], language: string): string {
  return formatsFor(language).orList.format(items);
}

/** "a, b, c" in `language`. */
export function formatList(items: readonly string[], language: string): string {
  return formatsFor(language).plainList.format(items);
}

// ---- The parameters' words ----

export interface ParameterText {
  /** The parameter's name, as messages and the badge use it. */
  label: string;
  /** The form's label (the name, with its range where it has one). */
  formLabel: string;
  placeholder: string;
  /** For a choice: value → label, in the table's order. */
  choices: Record<string, string>;
  /** Why the value is refused, as a sentence, or undefined when the table's rule allows it. */
  problem(value: unknown): string | undefined;
  /** How ⚙'s badge names the value when set; undefined = not worth naming. */
  active(value: unknown): string | undefined;
}

/** Numbers and lists in the caller's language. */
interface Formats {
  n(value: number): string;
  orList(items: readonly string[]): string;
  list(items: readonly string[]): string;
}

function formatsIn(language: string): Formats {
  return { n: (value) => formatNumber(value, language), orList: (items) => formatOrList(items, language), list: (items) => formatList(items, language) };
}

type Words = Omit<ParameterText, 'problem' | 'active' | 'choices' | 'formLabel'> & {
  formLabel?: string;
  choices?: Record<string, string>;
  active?(value: unknown): string | undefined;
};

/**
 * The sentence for a refusal of the table (src/api/chatParameterLimits.ts decides it, with
 * its bounds): the one place the panel words each kind. `label` is the parameter's name.
 */
function refusalText(label: string, why: Refusal, choices: Record<string, string>, { n, orList }: Formats): string {
  switch (why.kind) {
    case 'range':
      return l10n.t({ message: '{0} must be from {1} to {2}.', args: [label, n(why.min), n(why.max)], comment: ['{0} is the name of a chat parameter such as "Temperature"'] });
    case 'aboveAtMost':
      return l10n.t({ message: '{0} must be above {1} and at most {2}.', args: [label, n(why.above), n(why.max)], comment: ['{0} is the name of a chat parameter such as "Temperature"'] });
    case 'wholeAtLeast':
      return l10n.t({ message: '{0} must be a whole number of at least {1}.', args: [label, n(why.min)], comment: ['{0} is the name of a chat parameter such as "Temperature"'] });
    case 'atMost':
      return l10n.t({ message: '{0} must be at most {1}.', args: [label, n(why.max)], comment: ['{0} is the name of a chat parameter such as "Temperature"'] });
    case 'text':
      return l10n.t({ message: '{0} must be text.', args: [label], comment: ['{0} is the name of a chat parameter such as "Temperature"'] });
    case 'atMostChars':
      return l10n.t({ message: '{0} must be at most {1} characters.', args: [label, n(why.max)], comment: ['{0} is the name of a chat parameter such as "Temperature"'] });
    case 'oneOf':
      return l10n.t({
        message: '{0} must be {1}.',
        args: [label, orList(why.values.map((value) => choices[value] ?? value))],
        comment: ['{0} is the name of a chat parameter; {1} lists its allowed values, such as "Low, Medium or High"'],
      });
    case 'sequenceCount':
      return l10n.t({ message: '{0} must be 1 to {1} sequences.', args: [label, n(why.max)], comment: ['{0} is "Stop sequences"'] });
    case 'sequenceChars':
      return l10n.t({ message: '{0} must be sequences of 1 to {1} characters.', args: [label, n(why.max)], comment: ['{0} is "Stop sequences"'] });
    case 'wholeRange':
      // Digits only: the one such field is the seed, an identifier rather than an amount.
      return l10n.t({ message: '{0} must be a whole number from {1} to {2}.', args: [label, String(why.min), String(why.max)], comment: ['{0} is "Seed"'] });
  }
}

function range(min: number, max: number, n: Formats['n']): string {
  return l10n.t({ message: '{0}–{1}', args: [n(min), n(max)], comment: ['a range of numbers, such as "0–2"'] });
}

/** The placeholder of a field left empty: the value the service then uses. */
function serviceDefault(value: number, n: Formats['n']): string {
  return l10n.t({ message: 'default {0}', args: [n(value)], comment: ['the value the service uses when the field is empty'] });
}

/** Built at each use, never in a module-level constant: the bundle is configured after this module loads. */
const WORDS: Record<ChatParameterName, (formats: Formats) => Words> = {
  temperature: ({ n }) => ({
    label: l10n.t('Temperature'),
    formLabel: l10n.t({ message: 'Temperature ({0})', args: [range(TEMPERATURE.min, TEMPERATURE.max, n)], comment: ['{0} is a range of numbers such as "0–2"'] }),
    placeholder: serviceDefault(0.3, n),
  }),
  topP: ({ n }) => ({
    label: l10n.t('Top P'),
    formLabel: l10n.t({ message: 'Top P ({0})', args: [range(TOP_P.above, TOP_P.max, n)], comment: ['{0} is a range of numbers such as "0–1"'] }),
    placeholder: serviceDefault(0.75, n),
  }),
  maxTokens: () => ({ label: l10n.t('Max tokens'), placeholder: l10n.t('no limit') }),
  systemPrompt: () => ({
    label: l10n.t('System prompt'),
    placeholder: l10n.t({ message: 'none', comment: ['placeholder of an empty text field: nothing is sent'] }),
    active: (value) => (typeof value === 'string' && value.trim() ? l10n.t('System prompt') : undefined),
  }),
  responseFormat: () => {
    const choices = { text: l10n.t('Text'), json_object: l10n.t('JSON object') };
    return {
      label: l10n.t('Response format'),
      placeholder: '',
      choices,
      active: (value) => (value === 'json_object' ? l10n.t('JSON response') : undefined),
    };
  },
  outputFormat: () => {
    const choices = { '': l10n.t('Default (setting)'), chat: l10n.t('Chat completions'), responses: l10n.t('Responses') };
    return {
      label: l10n.t('Answer format'),
      placeholder: '',
      choices,
      active: (value) => (value === 'responses' ? l10n.t('Responses format') : l10n.t('Chat format')),
    };
  },
  reasoningEffort: () => {
    const choices = {
      '': l10n.t('Not set (use budget)'),
      low: l10n.t({ message: 'Low', comment: ['reasoning effort'] }),
      medium: l10n.t({ message: 'Medium', comment: ['reasoning effort'] }),
      high: l10n.t({ message: 'High', comment: ['reasoning effort'] }),
    };
    return { label: l10n.t('Reasoning effort'), placeholder: '', choices };
  },
  reasoningBudget: () => ({
    label: l10n.t('Reasoning budget'),
    formLabel: l10n.t('Reasoning budget (tokens)'),
    placeholder: l10n.t({ message: 'maximum', comment: ['placeholder of the reasoning budget: the model may use as many tokens as it can'] }),
  }),
  stop: ({ n, list }) => ({
    label: l10n.t('Stop sequences'),
    formLabel: l10n.t('Stop sequences (one per line, up to {0})', n(STOP.maxSequences)),
    placeholder: l10n.t({ message: 'none', comment: ['placeholder of an empty text field: nothing is sent'] }),
    active: (value) => (Array.isArray(value) ? l10n.t({ message: 'Stop {0}', args: [list(value.map((s) => JSON.stringify(s)))], comment: ['{0} lists stop sequences in quotes'] }) : undefined),
  }),
  seed: () => ({
    label: l10n.t('Seed'),
    placeholder: l10n.t({ message: 'random', comment: ['placeholder of the seed: a different result each time'] }),
  }),
  frequencyPenalty: ({ n }) => ({
    label: l10n.t('Frequency penalty'),
    formLabel: l10n.t({ message: 'Frequency penalty ({0})', args: [range(FREQUENCY_PENALTY.min, FREQUENCY_PENALTY.max, n)], comment: ['{0} is a range of numbers such as "-2–2"'] }),
    placeholder: serviceDefault(0, n),
  }),
  repetitionPenalty: ({ n }) => ({
    label: l10n.t('Repetition penalty'),
    formLabel: l10n.t({ message: 'Repetition penalty ({0})', args: [range(REPETITION_PENALTY.min, REPETITION_PENALTY.max, n)], comment: ['{0} is a range of numbers such as "0–2"'] }),
    placeholder: serviceDefault(1, n),
  }),
};

/**
 * A parameter's words in `language` (Intl's numbers and lists; the strings are the bundle
 * `l10n.config` was given). Built at each call: cheap, and never stale when the bundle changes.
 */
export function parameterText(name: ChatParameterName, language: string): ParameterText {
  const formats = formatsIn(language);
  const words = WORDS[name](formats);
  const rule = parameterRule(name);
  return {
    label: words.label,
    formLabel: words.formLabel ?? words.label,
    placeholder: words.placeholder,
    choices: words.choices ?? {},
    problem: (value) => {
      const why = rule.refusal(value);
      return why ? refusalText(words.label, why, words.choices ?? {}, formats) : undefined;
    },
    active: (value) => (words.active ? words.active(value) : l10n.t({ message: '{0} {1}', args: [words.label, String(value)], comment: ['a chat parameter and its value, such as "Seed 9"'] })),
  };
}

/** Both a reasoning effort and a budget: the service would ignore the budget (D12). */
export function effortAndBudgetText(): string {
  return l10n.t('Set either a reasoning effort or a reasoning token budget, not both: the service ignores the budget when an effort is set.');
}

/**
 * What is wrong with a whole set of parameters, as a sentence in `language`, or undefined:
 * the table's one judgement of a set (`parametersRefusal`, as `parametersProblem` says it in
 * English), worded here. `name` is the parameter the sentence is about.
 */
export function parametersProblemText(parameters: Readonly<Record<string, unknown>>, language: string): { name: string; message: string } | undefined {
  const refused = parametersRefusal(parameters);
  if (!refused) return undefined;
  switch (refused.kind) {
    case 'unknown':
      return { name: refused.name, message: l10n.t({ message: '{0} is not a chat parameter.', args: [refused.name], comment: ['{0} is the name a caller gave, such as "temprature"'] }) };
    case 'effortAndBudget':
      return { name: refused.name, message: effortAndBudgetText() };
    case 'value': {
      const text = parameterText(refused.name, language);
      return { name: refused.name, message: refusalText(text.label, refused.refusal, text.choices, formatsIn(language)) };
    }
  }
}
