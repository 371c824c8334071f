import type { ChatMode, ConversationSummary, ConversationView, ModelOptions, WebviewToHost } from '../chat/protocol';
import { button, el, formatDate } from './dom';
import { ParametersPopover } from './parametersPopover';

type Post = (message: WebviewToHost) => void;

/** Conversation switcher, mode, model / agent settings and the parameters popover. */
export class Header {
  readonly element: HTMLElement;
  readonly parameters: ParametersPopover;
  private readonly conversations = el('select', { class: 'conversation-select', 'aria-label': 'Conversation' });
  private readonly mode = el('select', { 'aria-label': 'Mode' }, el('option', { value: 'chat' }, 'Chat'), el('option', { value: 'agent' }, 'Agent'));
  private readonly model = el('input', { type: 'text', 'aria-label': 'Model', list: 'known-models', spellcheck: false, autocomplete: 'off', placeholder: 'model id' });
  private readonly knownModels = el('datalist', { id: 'known-models' });
  private readonly chatControls: HTMLElement;
  private readonly agentControls: HTMLElement;
  private readonly agentLabel = el('span', { class: 'agent-id' });
  private readonly thinking = el('input', { type: 'checkbox', id: 'enable-thinking', 'aria-label': 'Enable thinking' });
  private options: ModelOptions | undefined;
  private conversation: ConversationView | undefined;

  constructor(private readonly post: Post) {
    const newChat = button('New chat', '+', 'icon-button');
    newChat.addEventListener('click', () => this.post({ type: 'newConversation' }));
    this.parameters = new ParametersPopover(post);
    this.chatControls = el('div', { class: 'header-group model-group' }, this.model, this.knownModels, this.parameters.toggle);
    this.agentControls = el(
      'div',
      { class: 'header-group' },
      this.agentLabel,
      el('label', { class: 'checkbox', for: 'enable-thinking' }, this.thinking, 'Enable thinking'),
    );
    this.element = el(
      'header',
      { class: 'header' },
      el('div', { class: 'header-row' }, this.conversations, newChat),
      el('div', { class: 'header-row' }, this.mode, this.chatControls, this.agentControls),
      this.parameters.panel,
    );

    this.conversations.addEventListener('change', () => this.post({ type: 'openConversation', id: this.conversations.value }));
    this.mode.addEventListener('change', () => this.post({ type: 'setMode', mode: this.mode.value as ChatMode }));
    this.model.addEventListener('change', () => {
      const model = this.model.value.trim();
      // Free entry is allowed, but an empty model would only fail at send time.
      if (model) this.post({ type: 'setModel', model });
      else this.model.value = this.conversation?.model ?? '';
    });
    this.thinking.addEventListener('change', () => this.post({ type: 'setThinking', enabled: this.thinking.checked }));
  }

  setOptions(options: ModelOptions): void {
    this.options = options;
    this.knownModels.replaceChildren(...options.models.map((model) => el('option', { value: model })));
    if (this.conversation) this.showSettings(this.conversation);
  }

  show(conversation: ConversationView, summaries: ConversationSummary[]): void {
    this.conversation = conversation;
    const list = summaries.some((summary) => summary.id === conversation.id)
      ? summaries
      : [{ id: conversation.id, title: conversation.title, mode: conversation.mode, updatedAt: conversation.updatedAt }, ...summaries];
    this.conversations.replaceChildren(
      ...list.map((summary) =>
        el('option', { value: summary.id }, `${summary.title || 'Untitled'} · ${summary.mode === 'agent' ? 'Agent' : 'Chat'} · ${formatDate(summary.updatedAt)}`),
      ),
    );
    this.conversations.value = conversation.id;
    this.showSettings(conversation);
  }

  private showSettings(conversation: ConversationView): void {
    this.mode.value = conversation.mode;
    const agent = conversation.mode === 'agent';
    this.chatControls.hidden = agent;
    this.agentControls.hidden = !agent;
    if (document.activeElement !== this.model) this.model.value = conversation.model;
    const agentId = conversation.agentId ?? this.options?.agentId ?? '';
    this.agentLabel.textContent = `Agent ${agentId || '(not set)'}`;
    this.agentLabel.title = this.options?.agentModel ? `Model: ${this.options.agentModel}` : '';
    this.thinking.checked = Boolean(conversation.enableThinking);
    const reasoningModel = this.options?.reasoningModels.includes(conversation.model) ?? false;
    if (!this.parameters.isOpen) this.parameters.show(conversation.parameters, reasoningModel);
  }
}
