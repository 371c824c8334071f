// The chat engine: owns the conversations (which one is open, the one answer that may be
// streaming, what is on disk) and reports what happens as typed events through `subscribe`.
// It knows no front end: the panel (chat/panel/) maps its events to webview messages, and a
// front end without conversations streams single requests with `ask` (answerStream.ts).
import type { KsmService } from '../../api/service';
import type { ClientLogger } from '../../api/types';
import { launchAnswer, type AnswerOutcome, type RunningAnswer } from './answerLauncher';
import type { AnswerEvent, AnswerRequest } from './answerStream';
import { AnswerActions } from './answerActions';
import { ConversationContext, type CitedFile, type CitedPassage } from './conversationContext';
import {
  createConversation,
  MAX_TITLE_CHARS,
  newTurnId,
  titleFromQuestion,
  type AttachedFile,
  type ChatMode,
  type ContextVolume,
  type ChatParameters,
  type ConversationSummary,
  type ModelOptions,
  type StoredConversation,
  type Turn,
} from './conversationModel';
import type { ConversationStore } from './conversationStore';
import { buildAgentRequest, buildChatRequest, buildContinueRequest, requestMetadata, type AskInThread } from './requestBuilder';

/** How the chat panel's requests name their client in `metadata`. */
const PANEL_CLIENT = 'ksm-assistant/chat-panel';
import type { NewCodeContext } from './askAboutFile';
import { errorMessage } from '../../api/errors';

export type { AnswerOutcome } from './answerLauncher';
export type { CitedFile, CitedPassage } from './conversationContext';

export interface ChatEngineHost {
  getService(): KsmService;
  getOptions(): ModelOptions;
  /** Named volumes the agent searches besides the personal one (`ksm.volumes.list`). */
  getVolumes(): string[];
  /** Whether a service is set up (address and key); without it an answer says "not connected". */
  isConnected?(): Promise<boolean>;
  log: ClientLogger;
}

export interface ChatEngineTuning {
  /** How often a streaming answer is written to disk, so a crash loses at most this much. */
  checkpointMs?: number;
}

export type ChatEngineEvent =
  /** The open conversation was replaced (new, opened, deleted) or changed outside an answer (settings, title, attachments). */
  | { type: 'conversation'; conversation: StoredConversation }
  /** A question and its empty, streaming answer were added and saved; the answer's events follow. */
  | { type: 'turnStarted'; conversation: StoredConversation; question: Turn; answer: Turn }
  /** Continue: the last answer streams again, in place (its text so far kept); its events follow. */
  | { type: 'answerResumed'; conversation: StoredConversation; answer: Turn }
  /** A conversation that is not the open one was renamed or deleted: the list of conversations changed. */
  | { type: 'listChanged' }
  /**
   * One event of a streaming answer, already applied to the answer turn. The last is
   * `finished`, reported after the final save, when the engine takes questions again.
   */
  | { type: 'answer'; conversationId: string; turnId: string; event: AnswerEvent };

export type ChatEngineListener = (event: ChatEngineEvent) => void;

export { CONTINUE_PROMPT } from './requestBuilder';

export class ChatEngine {
  private conversation: StoredConversation | undefined;
  private running: RunningAnswer | undefined;
  /** A question is between `send` and its answer starting. */
  private starting = false;
  private readonly listeners = new Set<ChatEngineListener>();
  /** Retry, Regenerate, Continue, Edit and resend, Copy. */
  private readonly actions: AnswerActions;
  /** Attachments, code chips, chosen volumes and files, cited passages. */
  private readonly context: ConversationContext;

  constructor(
    protected readonly store: ConversationStore,
    protected readonly engineHost: ChatEngineHost,
    private readonly tuning: ChatEngineTuning = {},
  ) {
    const engine = {
      current: () => this.current(),
      openConversation: () => this.conversation,
      idleConversation: () => this.idleConversation(),
      update: (change: (conversation: StoredConversation) => void) => this.update(change),
      answer: (conversation: StoredConversation, question: Turn, inThread?: AskInThread, resume?: Turn) => this.answer(conversation, question, inThread, resume),
      log: () => this.engineHost.log,
    };
    this.actions = new AnswerActions(engine);
    this.context = new ConversationContext(engine);
  }

  /** Listens to every event until the returned handle is disposed. Listeners run synchronously, in order. */
  subscribe(listener: ChatEngineListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  /** The open conversation: the last one used, or a new (not yet saved) chat. */
  async current(): Promise<StoredConversation> {
    if (this.conversation) return this.conversation;
    const [latest] = await this.store.list();
    const loaded = latest ? await this.store.load(latest.id) : undefined;
    this.conversation ??= loaded ?? createConversation('chat', this.engineHost.getOptions());
    return this.conversation;
  }

  /** The open conversation if it was loaded already (no disk access). */
  get currentIfLoaded(): StoredConversation | undefined {
    return this.conversation;
  }

  /** True while an answer of the open conversation is streaming. */
  get busy(): boolean {
    return this.running !== undefined && this.running.conversation === this.conversation;
  }

  /** Saved conversations, newest first, with the open one listed even before its first save. */
  async summaries(): Promise<ConversationSummary[]> {
    return this.store.list();
  }

  /** Asks a question in the open conversation; resolves when the answer has ended and was saved. */
  async send(text: string): Promise<AnswerOutcome | undefined> {
    if (this.running || this.starting) {
      this.engineHost.log.warn('chat: a question arrived while an answer is streaming; dropped');
      return undefined;
    }
    // Taken before the first await, so a second question in the same tick is refused too.
    this.starting = true;
    let conversation: StoredConversation;
    try {
      conversation = await this.current();
    } finally {
      this.starting = false;
    }
    const question: Turn = { id: newTurnId(), role: 'user', content: text, createdAt: Date.now() };
    if (conversation.mode === 'agent' && conversation.pendingAttachments.length > 0) {
      question.attachments = conversation.pendingAttachments;
      conversation.pendingAttachments = [];
    }
    if (conversation.pendingCode?.length) {
      question.code = conversation.pendingCode;
      conversation.pendingCode = [];
    }
    if (!conversation.turns.some((t) => t.role === 'user')) conversation.title = titleFromQuestion(text);
    conversation.turns.push(question);
    return this.answer(conversation, question);
  }

  /** Aborts the streaming answer on the wire; its partial text is kept as `stopped`. */
  stop(): void {
    this.running?.controller.abort();
  }

  /** Asks the last question again in place of the last answer, if that answer did not finish normally. */
  retry(turnId: string): Promise<AnswerOutcome | undefined> {
    return this.actions.retry(turnId);
  }

  /** Regenerate: asks the last question again in place of the last answer, however it ended. */
  regenerate(turnId: string): Promise<AnswerOutcome | undefined> {
    return this.actions.regenerate(turnId);
  }

  /** Continue: extends the last answer in place when it was cut short (see answerActions.ts). */
  continueAnswer(turnId: string): Promise<AnswerOutcome | undefined> {
    return this.actions.continueAnswer(turnId);
  }

  /** Edit and resend: replaces the last question (and its answer) with `text` and asks it. */
  editLastQuestion(turnId: string, text: string): Promise<AnswerOutcome | undefined> {
    return this.actions.editLastQuestion(turnId, text);
  }

  /** The Markdown source of an answer (or question) of the open conversation, for Copy. */
  turnMarkdown(turnId: string): string | undefined {
    return this.actions.turnMarkdown(turnId);
  }

  /** Resolves when the streaming answer (if any) has ended and been saved. */
  async idle(): Promise<void> {
    await this.running?.done;
    await this.store.flush();
  }

  setMode(mode: ChatMode): Promise<void> {
    return this.update((c) => this.applyMode(c, mode));
  }

  setModel(model: string): Promise<void> {
    return this.update((c) => void (c.model = model));
  }

  setThinking(enabled: boolean): Promise<void> {
    return this.update((c) => void (c.enableThinking = enabled));
  }

  setParameters(parameters: ChatParameters): Promise<void> {
    return this.update((c) => void (c.parameters = parameters));
  }

  removeAttachment(fileId: string): Promise<void> {
    return this.context.removeAttachment(fileId);
  }

  /** Attaches a code chip to the next question; resolves to a sentence for the user when it is too big. */
  attachCode(code: NewCodeContext): Promise<string | undefined> {
    return this.context.attachCode(code);
  }

  removeCode(id: string): Promise<void> {
    return this.context.removeCode(id);
  }

  /** The volumes the open conversation searches in agent mode; an empty list means all. */
  setContextVolumes(volumes: ContextVolume[]): Promise<void> {
    return this.context.setContextVolumes(volumes);
  }

  removeContextVolume(volume: string): Promise<void> {
    return this.context.removeContextVolume(volume);
  }

  /** Files the open conversation searches instead of whole volumes; an empty list clears them. */
  setContextFiles(files: AttachedFile[]): Promise<void> {
    return this.context.setContextFiles(files);
  }

  removeContextFile(fileId: string): Promise<void> {
    return this.context.removeContextFile(fileId);
  }

  async newConversation(mode: ChatMode = 'chat'): Promise<StoredConversation> {
    this.conversation = createConversation(mode, this.engineHost.getOptions());
    this.emit({ type: 'conversation', conversation: this.conversation });
    return this.conversation;
  }

  async openConversation(id: string): Promise<boolean> {
    const conversation = this.running?.conversation.id === id ? this.running.conversation : await this.store.load(id);
    if (!conversation) {
      this.engineHost.log.warn(`asked to open unknown conversation ${id}; dropped`);
      return false;
    }
    this.conversation = conversation;
    this.emit({ type: 'conversation', conversation });
    return true;
  }

  /** Every saved conversation in full (the open one as it is now), newest first. */
  async conversationsForSearch(): Promise<StoredConversation[]> {
    const saved = await this.store.loadAll();
    const open = this.conversation;
    if (!open || open.turns.length === 0) return saved;
    return [open, ...saved.filter((c) => c.id !== open.id)];
  }

  async rename(id: string, title: string): Promise<void> {
    const conversation = this.conversation?.id === id ? this.conversation : await this.store.load(id);
    if (!conversation) return;
    conversation.title = title.trim().slice(0, MAX_TITLE_CHARS) || conversation.title;
    await this.store.save(conversation);
    this.emit(conversation === this.conversation ? { type: 'conversation', conversation } : { type: 'listChanged' });
  }

  async delete(id: string): Promise<void> {
    if (this.running?.conversation.id === id) {
      this.stop();
      await this.running?.done;
    }
    await this.store.delete(id);
    if (this.conversation?.id === id) await this.newConversation();
    else this.emit({ type: 'listChanged' });
  }

  /** Opens an agent conversation with these files waiting to be sent with the next question. */
  async attachForAgent(files: AttachedFile[]): Promise<void> {
    let conversation = await this.current();
    const reusable = !this.busy && (conversation.mode === 'agent' || conversation.turns.length === 0);
    if (!reusable) conversation = await this.newConversation('agent');
    if (conversation.mode !== 'agent') this.applyMode(conversation, 'agent');
    const pending = conversation.pendingAttachments.filter((a) => !files.some((f) => f.fileId === a.fileId));
    conversation.pendingAttachments = [...pending, ...files];
    await this.persist(conversation);
    this.emit({ type: 'conversation', conversation });
  }

  /** The file behind a citation an answer of the open conversation showed, or undefined (see conversationContext.ts). */
  citedFile(volume: string, fileId: string): CitedFile | undefined {
    return this.context.citedFile(volume, fileId);
  }

  /** The passage behind marker `marker` of answer `turnId`, or undefined when that answer has no such source. */
  citedPassage(turnId: string, marker: number): CitedPassage | undefined {
    return this.context.citedPassage(turnId, marker);
  }

  /** True only for a citation that an answer of the open conversation actually showed. */
  hasCitation(volume: string, fileId: string): boolean {
    return this.context.hasCitation(volume, fileId);
  }

  /** Stops a streaming answer and writes everything to disk (the front end or the window is closing). */
  async dispose(): Promise<void> {
    const running = this.running;
    if (running) {
      running.controller.abort();
      // Saved now, in case the host does not wait for the abort to unwind.
      running.answer.state = 'stopped';
      await this.store.save(running.conversation).catch(() => undefined);
      await running.done.catch(() => undefined);
    }
    await this.store.flush();
  }

  private applyMode(conversation: StoredConversation, mode: ChatMode): void {
    if (conversation.mode === mode) return;
    const options = this.engineHost.getOptions();
    conversation.mode = mode;
    conversation.model = mode === 'agent' ? options.agentModel : options.defaultModel;
    if (mode === 'agent') conversation.agentId ??= options.agentId;
  }

  private async update(change: (conversation: StoredConversation) => void): Promise<void> {
    const conversation = await this.current();
    change(conversation);
    await this.persist(conversation);
    this.emit({ type: 'conversation', conversation });
  }

  /** The open conversation when no answer is streaming or starting, else undefined. */
  private async idleConversation(): Promise<StoredConversation | undefined> {
    if (this.running || this.starting) return undefined;
    this.starting = true;
    try {
      return await this.current();
    } finally {
      this.starting = false;
    }
  }

  private answer(conversation: StoredConversation, question: Turn, inThread?: AskInThread, resume?: Turn): Promise<AnswerOutcome> {
    const { engineHost: host } = this;
    const isConnected = host.isConnected?.bind(host);
    this.takeDefaultModel(conversation);
    const running = launchAnswer({
      conversation,
      question,
      resume,
      request: (c, q): AnswerRequest => {
        const options = host.getOptions();
        const user = options.userId || undefined;
        if (c.mode === 'agent') return { kind: 'agent', body: { ...buildAgentRequest(c, q, host.getVolumes(), inThread), ...(user ? { user } : {}) } };
        const defaults = { outputFormat: options.outputFormat, user, metadata: requestMetadata(PANEL_CLIENT, c.id) };
        return { kind: 'chat', body: resume ? buildContinueRequest(c, options.reasoningModels, defaults) : buildChatRequest(c, options.reasoningModels, defaults) };
      },
      service: () => host.getService(),
      ...(isConnected ? { connected: isConnected } : {}),
      store: this.store,
      log: host.log,
      checkpointMs: this.tuning.checkpointMs ?? 1000,
      onStarted: (answer) => this.emit(resume ? { type: 'answerResumed', conversation, answer } : { type: 'turnStarted', conversation, question, answer }),
      onEvent: (event, answer) => this.emit({ type: 'answer', conversationId: conversation.id, turnId: answer.id, event }),
      onSettled: () => void (this.running = undefined),
    });
    this.running = running;
    return running.done;
  }

  /**
   * A chat begun before any service was set up has no model; once connected (settings now
   * list models) it takes the default, so its next question or Retry does not fail again.
   */
  private takeDefaultModel(conversation: StoredConversation): boolean {
    if (conversation.model.trim()) return false;
    const options = this.engineHost.getOptions();
    conversation.model = conversation.mode === 'agent' ? options.agentModel : options.defaultModel;
    return conversation.model !== '';
  }

  /** Settings changed: the open chat, if it has no model yet, shows the default at once. */
  async adoptDefaultModel(): Promise<void> {
    const conversation = this.conversation;
    if (!conversation || this.busy || !this.takeDefaultModel(conversation)) return;
    await this.persist(conversation);
    this.emit({ type: 'conversation', conversation });
  }

  /** Saves a conversation once it holds something worth keeping (an empty new chat is not listed). */
  private async persist(conversation: StoredConversation): Promise<void> {
    const holdsSomething =
      conversation.turns.length > 0 || conversation.pendingAttachments.length > 0 || !!conversation.pendingCode?.length || !!conversation.contextVolumes?.length || !!conversation.contextFiles?.length;
    if (!holdsSomething) return;
    conversation.updatedAt = Date.now();
    await this.store.save(conversation);
  }

  private emit(event: ChatEngineEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.engineHost.log.error(`an engine listener failed on "${event.type}": ${errorMessage(error)}`);
      }
    }
  }
}
