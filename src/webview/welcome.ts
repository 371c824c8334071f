// The in-chat welcome: while no service is set up, the two ways to connect (the same
// commands as the Volumes welcome and the walkthrough); once connected, an empty chat shows
// a few example questions that fill the composer. It sits above the transcript and never
// scrolls the page sideways (a 170 px side bar wraps its buttons).
import type { ChatMode, ConnectAction, WebviewToHost } from '../chat/protocol';
import { el } from './dom';

type Post = (message: WebviewToHost) => void;

const EXAMPLES: Record<ChatMode, string[]> = {
  chat: [
    'Explain what this regular expression matches: ^[\\w.+-]+@[\\w-]+\\.[\\w.]+$',
    'Write a TypeScript function that retries a promise three times with backoff.',
    'What are the trade-offs between REST and gRPC for internal services?',
  ],
  agent: ['Summarize what the files in my volumes are about.', 'Which of my documents mention deployment, and what do they say?'],
};

const CONNECT_ACTIONS: Array<{ action: ConnectAction; label: string; className: string }> = [
  { action: 'setApiKey', label: 'Set API Key', className: 'primary-button' },
  { action: 'useLocalEmulator', label: 'Connect to Local Emulator', className: 'secondary-button' },
];

export class Welcome {
  readonly element = el('div', { class: 'welcome', role: 'region', 'aria-label': 'Welcome', hidden: true });
  /** Unknown until the host says; treated as connected so nothing flashes "connect" at a connected user. */
  private connected = true;
  private mode: ChatMode = 'chat';
  private empty = true;

  constructor(
    private readonly post: Post,
    private readonly fillComposer: (text: string) => void,
  ) {}

  setConnected(connected: boolean): void {
    this.connected = connected;
    this.render();
  }

  /** The open conversation: its mode picks the examples; a conversation with turns shows them no more. */
  setConversation(mode: ChatMode, turnCount: number): void {
    this.mode = mode;
    this.empty = turnCount === 0;
    this.render();
  }

  private render(): void {
    if (!this.connected) {
      this.element.hidden = false;
      this.element.dataset.kind = 'connect';
      this.element.replaceChildren(
        el('p', { class: 'welcome-title' }, 'Not connected'),
        el('p', {}, 'Connect to a KSM service to chat with its models and ask the agent about your volumes.'),
        el(
          'div',
          { class: 'welcome-actions' },
          ...CONNECT_ACTIONS.map(({ action, label, className }) => {
            const button = el('button', { type: 'button', class: className, 'aria-label': label }, label);
            button.addEventListener('click', () => this.post({ type: 'connect', action }));
            return button;
          }),
        ),
        el('p', { class: 'welcome-note' }, 'Your company’s service: set ksm.baseUrl, then the API key. No account yet: run the bundled emulator (npm run emulator).'),
      );
      return;
    }
    this.element.dataset.kind = 'examples';
    this.element.hidden = !this.empty;
    if (!this.empty) return;
    this.element.replaceChildren(
      el('p', { class: 'welcome-title' }, this.mode === 'agent' ? 'Ask the agent about your volumes' : 'Ask anything'),
      el(
        'div',
        { class: 'welcome-examples' },
        ...EXAMPLES[this.mode].map((text) => {
          const button = el('button', { type: 'button', class: 'welcome-example', title: 'Put this question in the message box' }, text);
          button.addEventListener('click', () => this.fillComposer(text));
          return button;
        }),
      ),
    );
  }
}
