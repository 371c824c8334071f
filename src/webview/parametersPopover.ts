import type { ChatParameters, WebviewToHost } from '../chat/protocol';
import { button, el } from './dom';
import { parametersToForm, parseParameters, type ParameterForm } from './parameterRules';
import { TEMPERATURE, TOKEN_COUNT, TOP_P } from '../api/chatParameterLimits';

type Post = (message: WebviewToHost) => void;
type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** The Parameters button and its popover. Values are validated before anything is posted. */
export class ParametersPopover {
  readonly toggle = button('Parameters', '⚙', 'icon-button parameters-toggle', {
    'aria-expanded': 'false',
    'aria-controls': 'parameters-panel',
    'aria-haspopup': 'dialog',
    'aria-describedby': 'parameters-active',
  });
  /** The sign on ⚙ that parameters differ from the defaults; the list is its tooltip and description. */
  private readonly badge = el('span', { class: 'parameters-badge', 'aria-hidden': 'true', hidden: true });
  // Hidden, yet aria-describedby still reads it: screen readers hear what the dot shows.
  private readonly activeDescription = el('span', { id: 'parameters-active', hidden: true });
  readonly panel = el('form', { id: 'parameters-panel', class: 'popover', role: 'dialog', 'aria-label': 'Chat parameters', hidden: true, novalidate: true });
  private readonly fields: Record<keyof ParameterForm, Field>;
  private readonly errors = new Map<keyof ParameterForm, HTMLElement>();
  private readonly reasoningGroup = el('fieldset', { class: 'reasoning-group' }, el('legend', {}, 'Reasoning'));
  private reasoningModel = false;

  constructor(private readonly post: Post) {
    this.toggle.append(this.badge, this.activeDescription);
    this.fields = {
      temperature: el('input', { type: 'number', min: TEMPERATURE.min, max: TEMPERATURE.max, step: 0.1, placeholder: 'default 0.3' }),
      topP: el('input', { type: 'number', min: TOP_P.above, max: TOP_P.max, step: 0.05, placeholder: 'default 0.75' }),
      maxTokens: el('input', { type: 'number', min: TOKEN_COUNT.min, max: TOKEN_COUNT.max, step: 1, placeholder: 'no limit' }),
      systemPrompt: el('textarea', { rows: 3, placeholder: 'none' }),
      responseFormat: select([['text', 'Text'], ['json_object', 'JSON object']]),
      reasoningEffort: select([['', 'Not set (use budget)'], ['low', 'Low'], ['medium', 'Medium'], ['high', 'High']]),
      reasoningBudget: el('input', { type: 'number', min: TOKEN_COUNT.min, max: TOKEN_COUNT.max, step: 1, placeholder: 'maximum' }),
    };
    const labels: Record<keyof ParameterForm, string> = {
      temperature: `Temperature (${TEMPERATURE.min}–${TEMPERATURE.max})`,
      topP: `Top P (${TOP_P.above}–${TOP_P.max})`,
      maxTokens: 'Max tokens',
      systemPrompt: 'System prompt',
      responseFormat: 'Response format',
      reasoningEffort: 'Reasoning effort',
      reasoningBudget: 'Reasoning budget (tokens)',
    };
    for (const name of Object.keys(this.fields) as (keyof ParameterForm)[]) {
      const field = this.fields[name];
      field.id = `parameter-${name}`;
      field.name = name;
      const error = el('span', { class: 'field-error', id: `parameter-${name}-error`, role: 'alert', hidden: true });
      field.setAttribute('aria-describedby', error.id);
      this.errors.set(name, error);
      const row = el('div', { class: 'field' }, el('label', { for: field.id }, labels[name]), field, error);
      (name.startsWith('reasoning') ? this.reasoningGroup : this.panel).append(row);
    }
    const apply = el('button', { type: 'submit', class: 'primary-button' }, 'Apply');
    const cancel = button('Cancel', 'Cancel', 'secondary-button');
    this.panel.append(this.reasoningGroup, el('div', { class: 'popover-actions' }, apply, cancel));

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
    for (const name of Object.keys(this.fields) as (keyof ParameterForm)[]) this.fields[name].value = form[name];
    this.showErrors({});
  }

  /** Opens the popover with `focus` (default: the first field) focused. */
  open(focus: keyof ParameterForm = 'temperature'): void {
    this.panel.hidden = false;
    this.toggle.setAttribute('aria-expanded', 'true');
    this.fields[focus].focus();
    if (this.fields[focus] instanceof HTMLInputElement) (this.fields[focus] as HTMLInputElement).select();
  }

  /** The badge and tooltip: which parameters are not at their defaults. */
  private showActive(active: string[]): void {
    this.badge.hidden = active.length === 0;
    this.toggle.classList.toggle('has-active-parameters', active.length > 0);
    const summary = active.length ? `${active.length} set: ${active.join(', ')}` : 'all at their defaults';
    this.toggle.title = `Parameters (${summary})`;
    this.activeDescription.textContent = active.length ? `${summary}.` : '';
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

  private showErrors(errors: Partial<Record<keyof ParameterForm, string>>): void {
    let first: Field | undefined;
    for (const [name, element] of this.errors) {
      const message = errors[name];
      element.textContent = message ?? '';
      element.hidden = !message;
      this.fields[name].setAttribute('aria-invalid', String(Boolean(message)));
      if (message && !first) first = this.fields[name];
    }
    first?.focus();
  }
}

/** The parameters that differ from the defaults, as "Name value"; reasoning only where it is sent (reasoning models). */
export function activeParameters(parameters: ChatParameters, reasoningModel: boolean): string[] {
  const active: string[] = [];
  if (parameters.temperature !== undefined) active.push(`Temperature ${parameters.temperature}`);
  if (parameters.topP !== undefined) active.push(`Top P ${parameters.topP}`);
  if (parameters.maxTokens !== undefined) active.push(`Max tokens ${parameters.maxTokens}`);
  if (parameters.systemPrompt?.trim()) active.push('System prompt');
  if (parameters.responseFormat === 'json_object') active.push('JSON response');
  if (reasoningModel && parameters.reasoningEffort) active.push(`Reasoning effort ${parameters.reasoningEffort}`);
  if (reasoningModel && parameters.reasoningBudget !== undefined) active.push(`Reasoning budget ${parameters.reasoningBudget}`);
  return active;
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
