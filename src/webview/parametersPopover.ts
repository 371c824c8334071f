import * as l10n from '@vscode/l10n';
import type { ChatParameters, WebviewToHost } from '../chat/protocol';
import { button, el } from './dom';
import { activeParameters, parametersToForm, parseParameters, type ParameterForm } from './parameterRules';
import { CHAT_PARAMETER_NAMES, parameterRule, type ChatParameterName, type ParameterRule } from '../api/chatParameterLimits';
import { formatList, formatNumber, uiLanguage } from './locale';
import { parameterText } from '../common/core/parameterText';

type Post = (message: WebviewToHost) => void;
type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** The Parameters button and its popover. Values are validated before anything is posted. */
export class ParametersPopover {
  readonly toggle = button(l10n.t('Parameters'), '⚙', 'icon-button parameters-toggle', {
    'aria-expanded': 'false',
    'aria-controls': 'parameters-panel',
    'aria-haspopup': 'dialog',
    'aria-describedby': 'parameters-active',
  });
  /** The sign on ⚙ that parameters differ from the defaults; the list is its tooltip and description. */
  private readonly badge = el('span', { class: 'parameters-badge', 'aria-hidden': 'true', hidden: true });
  // Hidden, yet aria-describedby still reads it: screen readers hear what the dot shows.
  private readonly activeDescription = el('span', { id: 'parameters-active', hidden: true });
  readonly panel = el('form', { id: 'parameters-panel', class: 'popover', role: 'dialog', 'aria-label': l10n.t('Chat parameters'), hidden: true, novalidate: true });
  private readonly fields: Record<ChatParameterName, Field>;
  private readonly errors = new Map<ChatParameterName, HTMLElement>();
  private readonly reasoningGroup = el(
    'fieldset',
    { class: 'reasoning-group' },
    el('legend', {}, l10n.t({ message: 'Reasoning', comment: ['the group of reasoning parameters in the chat parameters form'] })),
  );
  /** Stop sequences, seed, penalties: folded away until opened (or until one is set). */
  private readonly advancedGroup = el('details', { class: 'advanced-group' }, el('summary', {}, l10n.t({ message: 'Advanced', comment: ['the folded group of less common chat parameters'] })));
  private reasoningModel = false;

  constructor(private readonly post: Post) {
    this.toggle.append(this.badge, this.activeDescription);
    // Every field comes from the one parameter table: a new parameter appears here by itself.
    this.fields = {} as Record<ChatParameterName, Field>;
    for (const name of CHAT_PARAMETER_NAMES) {
      const rule = parameterRule(name);
      const field = fieldFor(name, rule);
      this.fields[name] = field;
      field.id = `parameter-${name}`;
      field.name = name;
      const error = el('span', { class: 'field-error', id: `parameter-${name}-error`, role: 'alert', hidden: true });
      field.setAttribute('aria-describedby', error.id);
      this.errors.set(name, error);
      const row = el('div', { class: 'field' }, el('label', { for: field.id }, parameterText(name, uiLanguage()).formLabel), field, error);
      (rule.section === 'reasoning' ? this.reasoningGroup : rule.section === 'advanced' ? this.advancedGroup : this.panel).append(row);
    }
    const apply = el('button', { type: 'submit', class: 'primary-button' }, l10n.t('Apply'));
    const cancel = button(l10n.t('Cancel'), l10n.t('Cancel'), 'secondary-button');
    this.panel.append(this.reasoningGroup, this.advancedGroup, el('div', { class: 'popover-actions' }, apply, cancel));

    this.toggle.addEventListener('click', () => (this.panel.hidden ? this.open() : this.close()));
    cancel.addEventListener('click', () => this.close());
    this.panel.addEventListener('submit', (event) => {
      event.preventDefault();
      this.apply();
    });
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        this.close();
      }
    });
  }

  get isOpen(): boolean {
    return !this.panel.hidden;
  }

  /** Shows the conversation's values; reasoning fields only for reasoning models. */
  show(parameters: ChatParameters, reasoningModel: boolean): void {
    this.showActive(activeParameters(parameters, reasoningModel));
    this.reasoningModel = reasoningModel;
    this.reasoningGroup.hidden = !reasoningModel;
    const form = parametersToForm(parameters);
    (this.advancedGroup as HTMLDetailsElement).open = CHAT_PARAMETER_NAMES.some((name) => parameterRule(name).section === 'advanced' && parameters[name] !== undefined);
    for (const name of Object.keys(this.fields) as ChatParameterName[]) this.fields[name].value = form[name];
    this.showErrors({});
  }

  /** Opens the popover with `focus` (default: the first field) focused. */
  open(focus: ChatParameterName = 'temperature'): void {
    this.panel.hidden = false;
    this.toggle.setAttribute('aria-expanded', 'true');
    this.fields[focus].focus();
    if (this.fields[focus] instanceof HTMLInputElement) (this.fields[focus] as HTMLInputElement).select();
  }

  /** The badge and tooltip: which parameters are not at their defaults. */
  private showActive(active: string[]): void {
    this.badge.hidden = active.length === 0;
    this.toggle.classList.toggle('has-active-parameters', active.length > 0);
    const summary = active.length
      ? l10n.t({
          message: '{0} set: {1}',
          args: [formatNumber(active.length), formatList(active)],
          comment: ['{0} is how many chat parameters differ from their defaults; {1} lists them, such as "Seed 9, Temperature 0.5"'],
        })
      : l10n.t('all at their defaults');
    this.toggle.title = l10n.t({ message: 'Parameters ({0})', args: [summary], comment: ['tooltip of the parameters button; {0} says which parameters are set'] });
    this.activeDescription.textContent = active.length ? l10n.t({ message: '{0}.', args: [summary], comment: ['a sentence made of a summary of set parameters'] }) : '';
  }

  close(): void {
    this.panel.hidden = true;
    this.toggle.setAttribute('aria-expanded', 'false');
    this.toggle.focus();
  }

  private apply(): void {
    const form = Object.fromEntries(Object.entries(this.fields).map(([name, field]) => [name, readField(field)])) as unknown as ParameterForm;
    const result = parseParameters(form, this.reasoningModel);
    if (!result.ok) {
      this.showErrors(result.errors);
      return;
    }
    this.showErrors({});
    this.post({ type: 'setParameters', parameters: result.parameters });
    this.close();
  }

  private showErrors(errors: Partial<Record<ChatParameterName, string>>): void {
    let first: Field | undefined;
    for (const [name, element] of this.errors) {
      const message = errors[name];
      element.textContent = message ?? '';
      element.hidden = !message;
      this.fields[name].setAttribute('aria-invalid', String(Boolean(message)));
      if (message && !first) first = this.fields[name];
      if (message && parameterRule(name).section === 'advanced') (this.advancedGroup as HTMLDetailsElement).open = true;
    }
    first?.focus();
  }
}

/** The input a parameter's kind needs, with its bounds from the table. */
function fieldFor(name: ChatParameterName, rule: ParameterRule<unknown>): Field {
  const text = parameterText(name, uiLanguage());
  switch (rule.input) {
    case 'number':
      return el('input', { type: 'number', min: rule.range?.min, max: rule.range?.max, step: rule.range?.step ?? 'any', placeholder: text.placeholder });
    case 'choice':
      return select((rule.choices ?? []).map(([value, label]) => [value, text.choices[value] ?? label]));
    default:
      return el('textarea', { rows: rule.input === 'lines' ? 2 : 3, placeholder: text.placeholder });
  }
}

function select(options: [string, string][]): HTMLSelectElement {
  const element = el('select');
  for (const [value, label] of options) element.append(el('option', { value }, label));
  return element;
}

/** A number input holding text that is not a number reports '' as its value; keep it invalid. */
function readField(field: Field): string {
  return field instanceof HTMLInputElement && field.validity.badInput ? 'not a number' : field.value;
}
