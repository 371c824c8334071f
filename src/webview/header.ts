import type { ChatMode, ConversationSummary, ConversationView, ModelOptions, WebviewToHost } from '../chat/protocol';
import { button, el, formatDate } from './dom';
import { ParametersPopover } from './parametersPopover';

type Post = (message: WebviewToHost) => void;

const TITLE_SHOWN_CHARS = 60;

/** Conversation switcher, mode, model / agent settings and the parameters popover. */
export class Header {
  readonly element: HTMLElement;
  readonly parameters: ParametersPopover;
  private readonly conversations = el('select', { class: 'conversation-select', 'aria-label': 'Conversation' });
  private readonly mode = el('select', { 'aria-label': 'Mode' }, el('option', { value: 'chat' }, 'Chat'), el('option', { value: 'agent' }, 'Agent'));
  /**
   * Opens the host's model picker (a VS Code quick pick: recent models first, then those from
   * settings, free entry) rather than a list squeezed into a side bar that may be 170 px wide.
   */
  private readonly model = button('Model', '', 'model-button');
  private readonly modelName = el('span', { class: 'model-name' });
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
    this.model.replaceChildren(this.modelName, el('span', { class: 'model-chevron', 'aria-hidden': 'true' }, '▾'));
    this.chatControls = el('div', { class: 'header-group model-group' }, this.model, this.parameters.toggle);
    this.agentControls = el('div', { class: 'header-group' }, this.agentLabel, el('label', { class: 'checkbox', for: 'enable-thinking' }, this.thinking, 'Enable thinking'));
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
        const title = summary.title || 'Untitled';
        // Titles are kept whole; the dropdown shortens long ones and shows them whole on hover.
        const shown = title.length > TITLE_SHOWN_CHARS ? `${title.slice(0, TITLE_SHOWN_CHARS - 1).trimEnd()}…` : title;
        return el('option', { value: summary.id, title }, `${shown} · ${summary.mode === 'agent' ? 'Agent' : 'Chat'} · ${formatDate(summary.updatedAt)}`);
      }),
    );
    if (open) this.conversations.value = open.id;
  }

  private showSettings(conversation: ConversationView): void {
    this.mode.value = conversation.mode;
    const agent = conversation.mode === 'agent';
    this.chatControls.hidden = agent;
    this.agentControls.hidden = !agent;
    this.modelName.textContent = conversation.model || 'Pick a model';
    this.model.title = conversation.model ? `Model: ${conversation.model} (click to pick another)` : 'No model set: click to pick one';
    // The name a screen reader says holds the text on the button (WCAG 2.5.3, label in name).
    this.model.setAttribute('aria-label', conversation.model ? `Model: ${conversation.model}` : 'Pick a model');
    const agentId = conversation.agentId ?? this.options?.agentId ?? '';
    this.agentLabel.textContent = `Agent ${agentId || '(not set)'}`;
    this.agentLabel.title = this.options?.agentModel ? `Model: ${this.options.agentModel}` : '';
    this.thinking.checked = Boolean(conversation.enableThinking);
    const reasoningModel = this.options?.reasoningModels.includes(conversation.model) ?? false;
    if (!this.parameters.isOpen) this.parameters.show(conversation.parameters, reasoningModel);
  }
}
