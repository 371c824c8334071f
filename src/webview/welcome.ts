// The in-chat welcome: while no service is set up, the two ways to connect (the same
// commands as the Volumes welcome and the walkthrough); once connected, an empty chat shows
// a few example questions that fill the composer. It sits above the transcript and never
// scrolls the page sideways (a 170 px side bar wraps its buttons).
import * as l10n from '@vscode/l10n';
import type { ChatMode, ConnectAction, WebviewToHost } from '../chat/protocol';
import { el, withUserText } from './dom';

type Post = (message: WebviewToHost) => void;

/** Example questions, in the UI language (built when shown: after the bundle is configured). */
function examples(mode: ChatMode): string[] {
  return mode === 'chat'
    ? [
        l10n.t('Explain what a typical regular expression for email addresses matches, and where it goes wrong.'),
        l10n.t('Write a TypeScript function that retries a promise three times with backoff.'),
        l10n.t('What are the trade-offs between REST and gRPC for internal services?'),
      ]
    : [l10n.t('Summarize what the files in my volumes are about.'), l10n.t('Which of my documents mention deployment, and what do they say?')];
}

/** The two ways to connect; the labels are those of the commands they run (package.json). */
function connectActions(): Array<{ action: ConnectAction; label: string; className: string }> {
  return [
    { action: 'setApiKey', label: l10n.t('Set API Key'), className: 'primary-button' },
    { action: 'useLocalEmulator', label: l10n.t('Connect to Local Emulator'), className: 'secondary-button' },
  ];
}

export class Welcome {
  readonly element = el('div', { class: 'welcome', role: 'region', 'aria-label': l10n.t('Welcome'), hidden: true });
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
        el('p', { class: 'welcome-title' }, l10n.t('Not connected')),
        el('p', {}, l10n.t('Connect to a KSM service to chat with its models and ask the agent about your volumes.')),
        el(
          'div',
          { class: 'welcome-actions' },
          ...connectActions().map(({ action, label, className }) => {
            const button = el('button', { type: 'button', class: className, 'aria-label': label }, label);
            button.addEventListener('click', () => this.post({ type: 'connect', action }));
            return button;
          }),
        ),
        el(
          'p',
          { class: 'welcome-note' },
          // The setting and the command stay as written, in <code translate="no">.
          ...withUserText(
            ['ksm.baseUrl', 'npm run emulator'],
            ([setting, command]) =>
              l10n.t({
                message: 'Your company’s service: set {0}, then the API key. No account yet: run the bundled emulator ({1}).',
                args: [setting, command],
                comment: ['{0} is a setting name, {1} a command line'],
              }),
            'code',
          ),
        ),
      );
      return;
    }
    this.element.dataset.kind = 'examples';
    this.element.hidden = !this.empty;
    if (!this.empty) return;
    this.element.replaceChildren(
      el('p', { class: 'welcome-title' }, this.mode === 'agent' ? l10n.t('Ask the agent about your volumes') : l10n.t('Ask anything')),
      el(
        'div',
        { class: 'welcome-examples' },
        ...examples(this.mode).map((text) => {
          const button = el('button', { type: 'button', class: 'welcome-example', title: l10n.t('Put this question in the message box') }, text);
          button.addEventListener('click', () => this.fillComposer(text));
          return button;
        }),
      ),
    );
  }
}
