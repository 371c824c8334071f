// The Chat view's host side without `vscode`: the chat engine plus what the webview needs.
// Webview messages the session owns go through a handler map typed over the protocol; the
// engine's events become view messages: streamed text batched into `delta`s and citation
// changes batched with it (one DeltaBatcher, one flush, text first), everything else as
// `answerUpdate` patches and whole `conversation` snapshots, posted in order and
// only while the answer's conversation is the one shown.
import { ChatEngine, type ChatEngineEvent, type ChatEngineHost, type ChatEngineTuning } from '../core/chatEngine';
import type { AnswerEvent } from '../core/answerStream';
import type { ConversationStore } from '../core/conversationStore';
import { summarize, type Turn } from '../core/conversationModel';
import type { HandlerMap, HostToWebview, WebviewMessageType, WebviewToHost } from '../protocol';
import { DeltaBatcher, type DeltaBatch } from './deltaBatcher';
import { conversationView } from './viewMapping';
import { errorMessage } from '../../api/errors';

export { CONTINUE_PROMPT } from '../core/chatEngine';

export interface ChatSessionHost extends ChatEngineHost {
  post(message: HostToWebview): void;
  /** An answer ended in error; the host may offer a fix (for example "Set API Key"). */
  onAnswerFailed?(error: unknown): void;
}

export interface ChatSessionTuning extends ChatEngineTuning {
  flushIntervalMs?: number;
}

/** Messages the view provider handles itself (editor, clipboard, browser, Volumes view). */
export const VIEW_MESSAGE_TYPES = [
  'ready',
  'copyCode',
  'insertCode',
  'newFileWithCode',
  'openLink',
  'copyAnswer',
  'pickModel',
  'readLastAnswer',
  'openCitation',
  'chooseContextVolumes',
  'chooseContextFiles',
  'connect',
] as const satisfies readonly WebviewMessageType[];
export type ViewMessage = Extract<WebviewToHost, { type: (typeof VIEW_MESSAGE_TYPES)[number] }>;
/** Every other message is the session's: a new message type lands here and must get a handler. */
export type SessionMessage = Exclude<WebviewToHost, ViewMessage>;

export function isViewMessage(message: WebviewToHost): message is ViewMessage {
  return (VIEW_MESSAGE_TYPES as readonly string[]).includes(message.type);
}

export class ChatSession extends ChatEngine {
  private readonly batcher: DeltaBatcher;
  /** The answer streaming now, whose events the view may be shown. */
  private streaming: Turn | undefined;
  /** Posts wait behind a conversation snapshot still gathering its list, so the view sees them in order. */
  private outbox: Promise<void> | undefined;

  private readonly handlers = {
    send: (m) => this.send(m.text),
    stop: () => this.stop(),
    retry: (m) => this.retry(m.turnId),
    continue: (m) => this.continueAnswer(m.turnId),
    regenerate: (m) => this.regenerate(m.turnId),
    editQuestion: (m) => this.editLastQuestion(m.turnId, m.text),
    setMode: (m) => this.setMode(m.mode),
    setModel: (m) => this.setModel(m.model),
    setThinking: (m) => this.setThinking(m.enabled),
    setParameters: (m) => this.setParameters(m.parameters),
    removeAttachment: (m) => this.removeAttachment(m.fileId),
    removeCode: (m) => this.removeCode(m.id),
    removeContextVolume: (m) => this.removeContextVolume(m.volume),
    removeContextFile: (m) => this.removeContextFile(m.fileId),
    newConversation: () => this.newConversation(),
    openConversation: (m) => this.openConversation(m.id),
  } satisfies HandlerMap<SessionMessage, unknown>;

  private readonly engineEventViews = {
    conversation: () => this.postConversation(),
    turnStarted: (e) => {
      this.streaming = e.answer;
      if (this.isShown(e.conversation.id)) this.postConversation();
    },
    // The answer is shown again whole, streaming, with its text so far; the deltas extend it.
    answerResumed: (e) => {
      this.streaming = e.answer;
      if (this.isShown(e.conversation.id)) this.postConversation();
    },
    listChanged: () => this.postConversationList(),
    answer: (e) => {
      const shown = this.isShown(e.conversationId) && this.streaming?.id === e.turnId;
      const view = this.answerEventViews[e.event.type] as (event: AnswerEvent, answer: Turn, shown: boolean) => void;
      if (this.streaming) view(e.event, this.streaming, shown);
    },
  } satisfies HandlerMap<ChatEngineEvent>;

  private readonly answerEventViews = {
    text: (e, _answer, shown) => shown && this.batcher.add({ content: e.text }),
    reasoning: (e, _answer, shown) => shown && this.batcher.add({ reasoning: e.text }),
    // Each patch carries the whole list: one per citation event (a service may send 100,000 of
    // one citation each) cloned and posted a list as long as the answer's so far every time.
    citations: (_e, _answer, shown) => shown && this.batcher.add({ citations: true }),
    usage: (_e, answer, shown) => shown && this.postAnswerPatch(answer, { usage: answer.usage }),
    // The view shows neither: the thread id lives in the conversation, tools are not offered.
    thread: () => undefined,
    toolCall: () => undefined,
    finished: (e, answer, shown) => {
      if (shown) {
        // The text still waiting goes first; the final patch carries the citations.
        this.batcher.flush({ dropCitations: true });
        this.postAnswerPatch(answer, {
          state: answer.state,
          error: answer.error,
          finishReason: answer.finishReason,
          usage: answer.usage,
          citations: answer.citations,
          maxTokens: answer.maxTokens,
        });
        this.postInOrder({ type: 'busy', busy: false });
      }
      this.streaming = undefined;
      if (e.error?.cause !== undefined) this.host.onAnswerFailed?.(e.error.cause);
    },
  } satisfies { [K in AnswerEvent['type']]: (event: Extract<AnswerEvent, { type: K }>, answer: Turn, shown: boolean) => unknown };

  constructor(
    store: ConversationStore,
    private readonly host: ChatSessionHost,
    tuning: ChatSessionTuning = {},
  ) {
    super(store, host, tuning);
    this.batcher = new DeltaBatcher((batch) => this.postDelta(batch), tuning.flushIntervalMs);
    this.subscribe((event) => (this.engineEventViews[event.type] as (e: ChatEngineEvent) => void)(event));
  }

  /** Handles a session message that `parseWebviewMessage` accepted; resolves when it is done (an answer, when it ended). */
  async handle(message: SessionMessage): Promise<void> {
    await (this.handlers[message.type] as (m: SessionMessage) => unknown)(message);
  }

  async initMessage(): Promise<HostToWebview> {
    const conversation = await this.current();
    const conversations = await this.summaries();
    // Text still waiting in the batch is in the snapshot: post it first, never after.
    this.batcher.flush();
    return { type: 'init', conversation: conversationView(conversation), conversations, options: this.host.getOptions() };
  }

  optionsChanged(): void {
    this.postInOrder({ type: 'options', options: this.host.getOptions() });
    void this.adoptDefaultModel().catch((error: unknown) => this.host.log.warn(`[chat] could not take the default model: ${errorMessage(error)}`));
  }

  override async idle(): Promise<void> {
    await super.idle();
    await this.outbox;
  }

  private isShown(conversationId: string): boolean {
    return this.currentIfLoaded?.id === conversationId;
  }

  /** One flush: the text waiting, then (when they changed) the answer's citations, whole. */
  private postDelta(batch: DeltaBatch): void {
    const answer = this.streaming;
    if (!answer) return;
    if (batch.content || batch.reasoning) {
      const text = { ...(batch.content ? { content: batch.content } : {}), ...(batch.reasoning ? { reasoning: batch.reasoning } : {}) };
      this.postInOrder({ type: 'delta', turnId: answer.id, ...text });
    }
    if (batch.citations) this.postAnswerPatch(answer, { citations: answer.citations });
  }

  private postAnswerPatch(answer: Turn, patch: Extract<HostToWebview, { type: 'answerUpdate' }>['patch']): void {
    this.postInOrder({ type: 'answerUpdate', turnId: answer.id, patch: structuredClone(patch) });
  }

  /** The open conversation whole, as it is now, then whether it is answering. */
  private postConversation(): void {
    const conversation = this.currentIfLoaded;
    if (!conversation) return;
    this.batcher.flush();
    const snapshot = conversationView(conversation);
    const busy = this.busy;
    this.enqueue(async () => {
      const conversations = await this.summaries();
      if (!conversations.some((c) => c.id === snapshot.id)) conversations.unshift(summarize(snapshot));
      this.host.post({ type: 'conversation', conversation: snapshot, conversations });
      this.host.post({ type: 'busy', busy });
    });
  }

  /** The list of conversations alone (the open one is unchanged). */
  private postConversationList(): void {
    const open = this.currentIfLoaded;
    this.enqueue(async () => {
      const conversations = await this.summaries();
      if (open && !conversations.some((c) => c.id === open.id)) conversations.unshift(summarize(open));
      this.host.post({ type: 'conversationList', conversations });
    });
  }

  private postInOrder(message: HostToWebview): void {
    if (this.outbox) this.enqueue(() => this.host.post(message));
    else this.host.post(message);
  }

  private enqueue(step: () => void | Promise<void>): void {
    const next = (this.outbox ?? Promise.resolve()).then(step).catch((error: unknown) => {
      this.host.log.error(`[chat] could not update the view: ${errorMessage(error)}`);
    });
    this.outbox = next;
    void next.then(() => {
      if (this.outbox === next) this.outbox = undefined;
    });
  }
}
