// The chat's state machine, without `vscode`: which conversation is open, the one answer
// that may be streaming, and what each webview message does to them. The view provider
// feeds it validated messages and gives it a `post` function; tests drive it directly
// against the emulator.
import { launchAnswer, type RunningAnswer } from './answerLauncher';
import type { AnswerOutcome } from './answerRun';
import { createConversation, lastTurn, newTurnId, summarize, titleFromQuestion, type StoredConversation } from './conversationModel';
import type { ConversationStore } from './conversationStore';
import type { ChatSessionHost, ChatSessionTuning } from './answerLauncher';
import type { AttachmentView, ChatMode, ConversationView, HostToWebview, TurnView, WebviewToHost } from '../protocol';

export type { ChatSessionHost, ChatSessionTuning } from './answerLauncher';

export interface CitedFile {
  fileId: string;
  filename: string;
  volume?: string;
}

export const CONTINUE_PROMPT = 'Please continue exactly where your previous answer stopped.';

export class ChatSession {
  private conversation: StoredConversation | undefined;
  private running: RunningAnswer | undefined;

  constructor(
    private readonly store: ConversationStore,
    private readonly host: ChatSessionHost,
    private readonly tuning: ChatSessionTuning = {},
  ) {}

  /** The open conversation: the last one used, or a new (not yet saved) chat. */
  async current(): Promise<StoredConversation> {
    if (this.conversation) return this.conversation;
    const [latest] = await this.store.list();
    const loaded = latest ? await this.store.load(latest.id) : undefined;
    this.conversation ??= loaded ?? createConversation('chat', this.host.getOptions());
    return this.conversation;
  }

  get busy(): boolean {
    return this.running !== undefined && this.running.conversation === this.conversation;
  }

  async initMessage(): Promise<HostToWebview> {
    const conversation = await this.current();
    return { type: 'init', conversation, conversations: await this.store.list(), options: this.host.getOptions() };
  }

  /** Handles a message that `parseWebviewMessage` accepted. Editor actions belong to the view provider. */
  async handle(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case 'send':
        await this.send(message.text);
        return;
      case 'stop':
        this.stop();
        return;
      case 'retry':
        await this.retry(message.turnId);
        return;
      case 'continue':
        await this.continueAnswer(message.turnId);
        return;
      case 'setMode':
        await this.update((c) => this.applyMode(c, message.mode));
        return;
      case 'setModel':
        await this.update((c) => void (c.model = message.model));
        return;
      case 'setThinking':
        await this.update((c) => void (c.enableThinking = message.enabled));
        return;
      case 'setParameters':
        await this.update((c) => void (c.parameters = message.parameters));
        return;
      case 'removeAttachment':
        await this.removeAttachment(message.fileId);
        return;
      case 'newConversation':
        await this.newConversation();
        return;
      case 'openConversation':
        await this.openConversation(message.id);
        return;
      default:
        this.host.log.warn(`[chat] message "${message.type}" is not handled by the session; dropped`);
    }
  }

  /** Asks a question in the open conversation; resolves when the answer has ended. */
  async send(text: string): Promise<AnswerOutcome | undefined> {
    if (this.running) {
      this.host.log.warn('chat: a question arrived while an answer is streaming; dropped');
      return undefined;
    }
    const conversation = await this.current();
    const question: TurnView = { id: newTurnId(), role: 'user', content: text, createdAt: Date.now() };
    if (conversation.mode === 'agent' && conversation.pendingAttachments.length > 0) {
      question.attachments = conversation.pendingAttachments;
      conversation.pendingAttachments = [];
    }
    if (!conversation.turns.some((t) => t.role === 'user')) conversation.title = titleFromQuestion(text);
    conversation.turns.push(question);
    return this.answer(conversation, question);
  }

  /** Aborts the streaming answer on the wire; its partial text is kept as `stopped`. */
  stop(): void {
    this.running?.controller.abort();
  }

  /** Resolves when the streaming answer (if any) has ended and been saved. */
  async idle(): Promise<void> {
    await this.running?.done;
    await this.store.flush();
  }

  async newConversation(mode: ChatMode = 'chat'): Promise<StoredConversation> {
    this.conversation = createConversation(mode, this.host.getOptions());
    await this.postConversation();
    return this.conversation;
  }

  async openConversation(id: string): Promise<boolean> {
    const conversation = this.running?.conversation.id === id ? this.running.conversation : await this.store.load(id);
    if (!conversation) {
      this.host.log.warn(`[chat] asked to open unknown conversation ${id}; dropped`);
      return false;
    }
    this.conversation = conversation;
    await this.postConversation();
    return true;
  }

  /** Every saved conversation in full (the open one as it is now), newest first. */
  async conversationsForSearch(): Promise<ConversationView[]> {
    const saved = await this.store.loadAll();
    const open = this.conversation;
    if (!open || open.turns.length === 0) return saved;
    return [open, ...saved.filter((c) => c.id !== open.id)];
  }

  async rename(id: string, title: string): Promise<void> {
    const conversation = this.conversation?.id === id ? this.conversation : await this.store.load(id);
    if (!conversation) return;
    conversation.title = title.trim().slice(0, 200) || conversation.title;
    await this.store.save(conversation);
    if (conversation === this.conversation) await this.postConversation();
  }

  async delete(id: string): Promise<void> {
    if (this.running?.conversation.id === id) {
      this.stop();
      await this.running?.done;
    }
    await this.store.delete(id);
    if (this.conversation?.id === id) await this.newConversation();
  }

  /** Opens an agent conversation with these files waiting to be sent with the next question. */
  async attachForAgent(files: AttachmentView[]): Promise<void> {
    let conversation = await this.current();
    const reusable = !this.busy && (conversation.mode === 'agent' || conversation.turns.length === 0);
    if (!reusable) conversation = await this.newConversation('agent');
    if (conversation.mode !== 'agent') this.applyMode(conversation, 'agent');
    const pending = conversation.pendingAttachments.filter((a) => !files.some((f) => f.fileId === a.fileId));
    conversation.pendingAttachments = [...pending, ...files];
    await this.persist(conversation);
    await this.postConversation();
  }

  /** True only for a citation that an answer of the open conversation actually showed. */
  hasCitation(volume: string, fileId: string): boolean {
    return this.citedFile(volume, fileId) !== undefined;
  }

  /**
   * The file behind a citation an answer of the open conversation showed (`volume` '' for
   * one the service gave without a volume), or undefined when no answer cited it. A citation
   * without a volume takes the volume of the same file attached to the conversation, if any;
   * else `volume` stays undefined and the caller must say it cannot be located.
   */
  citedFile(volume: string, fileId: string): CitedFile | undefined {
    const turns = this.conversation?.turns ?? [];
    const citation = turns.flatMap((t) => t.citations ?? []).find((c) => c.fileId === fileId && (c.volume ?? '') === volume);
    if (!citation) return undefined;
    if (citation.volume) return { fileId, filename: citation.filename, volume: citation.volume };
    const attachments = [...turns.flatMap((t) => t.attachments ?? []), ...(this.conversation?.pendingAttachments ?? [])];
    const attached = attachments.find((a) => a.fileId === fileId && a.volume);
    return { fileId, filename: citation.filename, ...(attached ? { volume: attached.volume } : {}) };
  }

  optionsChanged(): void {
    this.host.post({ type: 'options', options: this.host.getOptions() });
  }

  /** Stops a streaming answer and writes everything to disk (VS Code is closing the view or the window). */
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

  private async retry(turnId: string): Promise<void> {
    const conversation = await this.current();
    const last = lastTurn(conversation);
    if (this.running || !last || last.id !== turnId || last.role !== 'assistant' || last.state === 'done') {
      this.host.log.warn(`[chat] retry of turn ${turnId} refused (not the last finished-badly answer)`);
      return;
    }
    conversation.turns.pop();
    const question = lastTurn(conversation);
    if (question?.role !== 'user') return;
    await this.answer(conversation, question);
  }

  private async continueAnswer(turnId: string): Promise<void> {
    const last = lastTurn(await this.current());
    const continuable = last?.role === 'assistant' && (last.state === 'length' || last.state === 'stopped' || last.state === 'cut-off');
    if (!continuable || last.id !== turnId) {
      this.host.log.warn(`[chat] continue of turn ${turnId} refused (not the last cut-short answer)`);
      return;
    }
    await this.send(CONTINUE_PROMPT);
  }

  private async removeAttachment(fileId: string): Promise<void> {
    const conversation = await this.current();
    if (!conversation.pendingAttachments.some((a) => a.fileId === fileId)) {
      this.host.log.warn(`[chat] remove of unknown attachment ${fileId}; dropped`);
      return;
    }
    await this.update((c) => void (c.pendingAttachments = c.pendingAttachments.filter((a) => a.fileId !== fileId)));
  }

  private applyMode(conversation: StoredConversation, mode: ChatMode): void {
    if (conversation.mode === mode) return;
    const options = this.host.getOptions();
    conversation.mode = mode;
    conversation.model = mode === 'agent' ? options.agentModel : options.defaultModel;
    if (mode === 'agent') conversation.agentId ??= options.agentId;
  }

  private async update(change: (conversation: StoredConversation) => void): Promise<void> {
    const conversation = await this.current();
    change(conversation);
    await this.persist(conversation);
    await this.postConversation();
  }

  private answer(conversation: StoredConversation, question: TurnView): Promise<AnswerOutcome> {
    const running = launchAnswer({
      conversation,
      question,
      store: this.store,
      host: this.host,
      tuning: this.tuning,
      isVisible: () => this.conversation === conversation,
      postConversation: () => this.postConversation(),
      onSettled: () => void (this.running = undefined),
    });
    this.running = running;
    return running.done;
  }

  /** Saves a conversation once it holds something worth keeping (an empty new chat is not listed). */
  private async persist(conversation: StoredConversation): Promise<void> {
    if (conversation.turns.length === 0 && conversation.pendingAttachments.length === 0) return;
    conversation.updatedAt = Date.now();
    await this.store.save(conversation);
  }

  private async postConversation(): Promise<void> {
    const conversation = await this.current();
    const conversations = await this.store.list();
    if (!conversations.some((c) => c.id === conversation.id)) conversations.unshift(summarize(conversation));
    this.host.post({ type: 'conversation', conversation, conversations });
    this.host.post({ type: 'busy', busy: this.busy });
  }
}
