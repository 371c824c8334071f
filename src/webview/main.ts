// Entry point of the chat webview: builds the panel, restores the draft and scroll
// position kept across the view being hidden, and routes host messages.
import type { HostToWebview } from '../chat/protocol';
import { Composer } from './composer';
import { Header } from './header';
import { applyPageBootstrap } from './pageBootstrap';
import { Transcript } from './transcript';
import { EDIT_QUESTION_EVENT, RAISE_MAX_TOKENS_EVENT, type EditQuestionDetail } from './turnView';
import { HostBridge, type PersistedState } from './vscodeApi';
import { Welcome } from './welcome';

// The UI language and its strings first: every component below builds its text with them.
applyPageBootstrap();

const host = new HostBridge();
const post = host.post.bind(host);
const state: PersistedState = host.loadState();
let saveTimer: number | undefined;

function persistSoon(): void {
  // Scroll events fire per frame; one write per 200 ms is plenty.
  window.clearTimeout(saveTimer);
  saveTimer = window.setTimeout(() => host.saveState(state), 200);
}

const header = new Header(post);
const transcript = new Transcript(post, (scrollTop) => {
  state.scrollTop = scrollTop;
  persistSoon();
});
const composer = new Composer(post, (draft) => {
  state.draft = draft;
  host.saveState(state);
});

const welcome = new Welcome(post, (text) => {
  composer.setDraft(text);
  state.draft = text;
  host.saveState(state);
  composer.focus();
});

const app = document.getElementById('app') ?? document.body.appendChild(document.createElement('div'));
app.classList.add('chat-app');
app.replaceChildren(header.element, welcome.element, transcript.element, composer.element);
composer.setDraft(state.draft);

// A turn's Edit puts its question into the composer; "Raise limit…" opens ⚙ at Max tokens.
document.addEventListener(EDIT_QUESTION_EVENT, (event) => {
  const { turnId, text } = (event as CustomEvent<EditQuestionDetail>).detail;
  composer.startEdit(turnId, text);
});
document.addEventListener(RAISE_MAX_TOKENS_EVENT, () => header.parameters.open('maxTokens'));

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && !header.parameters.isOpen) composer.requestStop();
  // Alt+F2, VS Code's Accessible View key: the last answer as plain text in a read-only editor.
  if (event.key === 'F2' && event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
    event.preventDefault();
    post({ type: 'readLastAnswer' });
  }
});

host.onMessage((message: HostToWebview) => {
  switch (message.type) {
    case 'init':
    case 'conversation': {
      if (message.type === 'init') header.setOptions(message.options);
      const sameConversation = state.conversationId === message.conversation.id;
      header.show(message.conversation, message.conversations);
      transcript.show(message.conversation);
      welcome.setConversation(message.conversation.mode, message.conversation.turns.length);
      composer.setAttachments(message.conversation.pendingAttachments);
      composer.setContext(message.conversation);
      composer.keepEditOnlyFor(message.conversation.turns.findLast((turn) => turn.role === 'user')?.id);
      // After a reload of the same conversation, put the reader back where they were.
      if (message.type === 'init' && sameConversation && state.scrollTop) transcript.restoreScroll(state.scrollTop);
      state.conversationId = message.conversation.id;
      host.saveState(state);
      break;
    }
    case 'options':
      header.setOptions(message.options);
      break;
    case 'conversationList':
      header.showList(message.conversations);
      break;
    case 'delta':
      transcript.appendDelta(message.turnId, message.content, message.reasoning);
      break;
    case 'answerUpdate':
      transcript.patch(message.turnId, message.patch);
      break;
    case 'busy':
      composer.setBusy(message.busy);
      break;
    case 'prefill':
      composer.setDraft(message.text);
      if (message.attachments) composer.setAttachments(message.attachments);
      composer.focus();
      break;
    case 'focusComposer':
      composer.focus();
      break;
    case 'connection':
      welcome.setConnected(message.connected);
      break;
    default: {
      // Every message type of the protocol has a case above: a new one fails to compile here.
      const unhandled: never = message;
      console.warn('KSM chat: unknown message from the host', (unhandled as { type?: unknown }).type);
    }
  }
});

post({ type: 'ready' });
