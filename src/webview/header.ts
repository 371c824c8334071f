import * as l10n from '@vscode/l10n';
import type { ChatMode, ConversationSummary, ConversationView, ModelOptions, WebviewToHost } from '../chat/protocol';
import { button, el, withUserText } from './dom';
import { formatDate } from './locale';
import { ParametersPopover } from './parametersPopover';

type Post = (message: WebviewToHost) => void;

const TITLE_SHOWN_CHARS = 60;

/** Conversation switcher, mode, model / agent settings and the parameters popover. */
export class Header {
  readonly element: HTMLElement;
  readonly parameters: ParametersPopover;
  private readonly conversations = el('select', { class: 'conversation-select', 'aria-label': l10n.t('Conversation') });
  private readonly mode = el('select', { 'aria-label': l10n.t('Mode') }, el('option', { value: 'chat' }, modeName('chat')), el('option', { value: 'agent' }, modeName('agent')));
  /**
   * Opens the host's model picker (a VS Code quick pick: recent models first, then those from
   * settings, free entry) rather than a list squeezed into a side bar that may be 170 px wide.
   */
  private readonly model = button(l10n.t('Model'), '', 'model-button');
  private readonly modelName = el('span', { class: 'model-name' });
  private readonly chatControls: HTMLElement;
  private readonly agentControls: HTMLElement;
  private readonly agentLabel = el('span', { class: 'agent-id' });
  private readonly thinking = el('input', { type: 'checkbox', id: 'enable-thinking', 'aria-label': l10n.t('Enable thinking') });
  private options: ModelOptions | undefined;
  private conversation: ConversationView | undefined;

  constructor(private readonly post: Post) {
    const newChat = button(l10n.t('New chat'), '+', 'icon-button');
    newChat.addEventListener('click', () => this.post({ type: 'newConversation' }));
    this.parameters = new ParametersPopover(post);
    this.model.replaceChildren(this.modelName, el('span', { class: 'model-chevron', 'aria-hidden': 'true' }, '▾'));
    this.chatControls = el('div', { class: 'header-group model-group' }, this.model, this.parameters.toggle);
    this.agentControls = el('div', { class: 'header-group' }, this.agentLabel, el('label', { class: 'checkbox', for: 'enable-thinking' }, this.thinking, l10n.t('Enable thinking')));
    this.element = el(
      'header',
      { class: 'header' },
      el('div', { class: 'header-row' }, this.conversations, newChat),
      el('div', { class: 'header-row' }, this.mode, this.chatControls, this.agentControls),
      this.parameters.panel,
    );

    this.conversations.addEventListener('change', () => this.post({ type: 'openConversation', id: this.conversations.value }));
    this.mode.addEventListener('change', () => this.post({ type: 'setMode', mode: this.mode.value as ChatMode }));
    this.model.addEventListener('click', () => this.post({ type: 'pickModel' }));
    this.thinking.addEventListener('change', () => this.post({ type: 'setThinking', enabled: this.thinking.checked }));
  }

  setOptions(options: ModelOptions): void {
    this.options = options;
    if (this.conversation) this.showSettings(this.conversation);
  }

  show(conversation: ConversationView, summaries: ConversationSummary[]): void {
    this.conversation = conversation;
    this.showList(summaries);
    this.showSettings(conversation);
  }

  /** The conversations dropdown (after a rename or delete elsewhere, alone). The open one is always listed and selected. */
  showList(summaries: ConversationSummary[]): void {
    const open = this.conversation;
    const list = !open || summaries.some((summary) => summary.id === open.id) ? summaries : [{ id: open.id, title: open.title, mode: open.mode, updatedAt: open.updatedAt }, ...summaries];
    this.conversations.replaceChildren(
      ...list.map((summary) => {
        const title = summary.title || l10n.t({ message: 'Untitled', comment: ['a conversation without a title'] });
        // Titles are kept whole; the dropdown shortens long ones and shows them whole on hover.
        const shown = title.length > TITLE_SHOWN_CHARS ? `${title.slice(0, TITLE_SHOWN_CHARS - 1).trimEnd()}…` : title;
        // An option holds text only: the title in it cannot be marked apart (the l10n test knows the titles it sent).
        return el(
          'option',
          { value: summary.id, title },
          l10n.t({
            message: '{0} · {1} · {2}',
            args: [shown, modeName(summary.mode), formatDate(summary.updatedAt)],
            comment: ['a saved conversation: {0} title, {1} Chat or Agent, {2} date and time'],
          }),
        );
      }),
    );
    if (open) this.conversations.value = open.id;
  }

  private showSettings(conversation: ConversationView): void {
    this.mode.value = conversation.mode;
    const agent = conversation.mode === 'agent';
    this.chatControls.hidden = agent;
    this.agentControls.hidden = !agent;
    this.modelName.textContent = conversation.model || l10n.t('Pick a model');
    // A model id is not translated; "Pick a model" is.
    this.modelName.translate = !conversation.model;
    this.model.title = conversation.model
      ? l10n.t({ message: 'Model: {0} (click to pick another)', args: [conversation.model], comment: ['{0} is a model id'] })
      : l10n.t('No model set: click to pick one');
    // The name a screen reader says holds the text on the button (WCAG 2.5.3, label in name).
    this.model.setAttribute('aria-label', conversation.model ? l10n.t({ message: 'Model: {0}', args: [conversation.model], comment: ['{0} is a model id'] }) : l10n.t('Pick a model'));
    const agentId = conversation.agentId ?? this.options?.agentId ?? '';
    this.agentLabel.replaceChildren(
      ...(agentId
        ? withUserText([agentId], ([id]) => l10n.t({ message: 'Agent {0}', args: [id], comment: ['{0} is the agent id, such as "agent-42"'] }))
        : [l10n.t({ message: 'Agent (not set)', comment: ['no agent id is set'] })]),
    );
    this.agentLabel.title = this.options?.agentModel ? l10n.t({ message: 'Model: {0}', args: [this.options.agentModel], comment: ['{0} is a model id'] }) : '';
    this.thinking.checked = Boolean(conversation.enableThinking);
    const reasoningModel = this.options?.reasoningModels.includes(conversation.model) ?? false;
    if (!this.parameters.isOpen) this.parameters.show(conversation.parameters, reasoningModel);
  }
}

/** A conversation's mode, as the mode menu and the conversation list name it. */
function modeName(mode: ChatMode): string {
  return mode === 'agent' ? l10n.t({ message: 'Agent', comment: ['the agent mode of a conversation'] }) : l10n.t({ message: 'Chat', comment: ['the chat mode of a conversation'] });
}
