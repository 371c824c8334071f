// The words of the ⚙ form in the UI language: each parameter's name, form label,
// placeholder, choice labels, its problem as a sentence, and how the ⚙ badge names it. The
// one parameter table (src/api/chatParameterLimits.ts) stays the source of the rules, the
// bounds and which values are allowed (`rule.refusal(value)` decides and names the kind of
// refusal with its bounds; `refusalText` only words it); the table imports
// nothing, so its English words serve the CLI and the host's logs, and the webview says the
// same here through `l10n.t` (a parameter added to the table fails to compile until it has
// its words here). No DOM: parameterRules.ts runs under Node in tests too.
import * as l10n from '@vscode/l10n';
import { FREQUENCY_PENALTY, parameterRule, REPETITION_PENALTY, STOP, TEMPERATURE, TOP_P, type ChatParameterName, type Refusal } from '../api/chatParameterLimits';
import { formatList, formatNumber, formatOrList } from './locale';

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

type Words = Omit<ParameterText, 'problem' | 'active' | 'choices' | 'formLabel'> & {
  formLabel?: string;
  choices?: Record<string, string>;
  active?(value: unknown): string | undefined;
};

const n = formatNumber;

/**
 * The sentence for a refusal of the table (src/api/chatParameterLimits.ts decides it, with
 * its bounds): the one place the panel words each kind. `label` is the parameter's name.
 */
function refusalText(label: string, why: Refusal, choices: Record<string, string>): string {
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
        args: [label, formatOrList(why.values.map((value) => choices[value] ?? value))],
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

function range(min: number, max: number): string {
  return l10n.t({ message: '{0}–{1}', args: [n(min), n(max)], comment: ['a range of numbers, such as "0–2"'] });
}

/** Built on first use, after `configureLocale`: the words are in the UI language. */
const WORDS: Record<ChatParameterName, () => Words> = {
  temperature: () => ({
    label: l10n.t('Temperature'),
    formLabel: l10n.t({ message: 'Temperature ({0})', args: [range(TEMPERATURE.min, TEMPERATURE.max)], comment: ['{0} is a range of numbers such as "0–2"'] }),
    placeholder: l10n.t({ message: 'default {0}', args: [n(0.3)], comment: ['the value the service uses when the field is empty'] }),
  }),
  topP: () => ({
    label: l10n.t('Top P'),
    formLabel: l10n.t({ message: 'Top P ({0})', args: [range(TOP_P.above, TOP_P.max)], comment: ['{0} is a range of numbers such as "0–1"'] }),
    placeholder: l10n.t({ message: 'default {0}', args: [n(0.75)], comment: ['the value the service uses when the field is empty'] }),
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
  stop: () => ({
    label: l10n.t('Stop sequences'),
    formLabel: l10n.t('Stop sequences (one per line, up to {0})', n(STOP.maxSequences)),
    placeholder: l10n.t({ message: 'none', comment: ['placeholder of an empty text field: nothing is sent'] }),
    active: (value) => (Array.isArray(value) ? l10n.t({ message: 'Stop {0}', args: [formatList(value.map((s) => JSON.stringify(s)))], comment: ['{0} lists stop sequences in quotes'] }) : undefined),
  }),
  seed: () => ({
    label: l10n.t('Seed'),
    placeholder: l10n.t({ message: 'random', comment: ['placeholder of the seed: a different result each time'] }),
  }),
  frequencyPenalty: () => ({
    label: l10n.t('Frequency penalty'),
    formLabel: l10n.t({ message: 'Frequency penalty ({0})', args: [range(FREQUENCY_PENALTY.min, FREQUENCY_PENALTY.max)], comment: ['{0} is a range of numbers such as "-2–2"'] }),
    placeholder: l10n.t({ message: 'default {0}', args: [n(0)], comment: ['the value the service uses when the field is empty'] }),
  }),
  repetitionPenalty: () => ({
    label: l10n.t('Repetition penalty'),
    formLabel: l10n.t({ message: 'Repetition penalty ({0})', args: [range(REPETITION_PENALTY.min, REPETITION_PENALTY.max)], comment: ['{0} is a range of numbers such as "0–2"'] }),
    placeholder: l10n.t({ message: 'default {0}', args: [n(1)], comment: ['the value the service uses when the field is empty'] }),
  }),
};

const cache = new Map<ChatParameterName, ParameterText>();

export function parameterText(name: ChatParameterName): ParameterText {
  let text = cache.get(name);
  if (!text) {
    const words = WORDS[name]();
    const rule = parameterRule(name);
    text = {
      label: words.label,
      formLabel: words.formLabel ?? words.label,
      placeholder: words.placeholder,
      choices: words.choices ?? {},
      problem: (value) => {
        const why = rule.refusal(value);
        return why ? refusalText(words.label, why, words.choices ?? {}) : undefined;
      },
      active: (value) => (words.active ? words.active(value) : l10n.t({ message: '{0} {1}', args: [words.label, String(value)], comment: ['a chat parameter and its value, such as "Seed 9"'] })),
    };
    cache.set(name, text);
  }
  return text;
}

/** Both a reasoning effort and a budget: the service would ignore the budget (D12). */
export function effortAndBudgetText(): string {
  return l10n.t('Set either a reasoning effort or a reasoning token budget, not both: the service ignores the budget when an effort is set.');
}
