import * as l10n from '@vscode/l10n';
import type { AttachmentView, ConversationView, WebviewToHost } from '../chat/protocol';
import { ContextBar } from './contextChips';
import { button, el } from './dom';
import { attachmentChips } from './turnView';

type Post = (message: WebviewToHost) => void;

/** Message box with Send/Stop and the attachments waiting to be sent. */
export class Composer {
  readonly element: HTMLElement;
  private readonly input = el('textarea', { class: 'message-input', 'aria-label': l10n.t('Message'), rows: 3, placeholder: l10n.t('Ask… (Enter to send, Shift+Enter for a new line)') });
  private readonly send = button(l10n.t('Send'), l10n.t({ message: 'Send ➤', comment: ['the send button; keep the arrow'] }), 'primary-button');
  private readonly stop = button(l10n.t('Stop'), l10n.t({ message: '■ Stop', comment: ['the stop button; keep the square'] }), 'secondary-button', { hidden: true });
  private readonly attachments = el('div', { class: 'pending-attachments' });
  private readonly context: ContextBar;
  private readonly editBanner = el('div', { class: 'edit-banner', hidden: true });
  /** Editing the last question: Send replaces it (and its answer). The draft before editing comes back on Cancel. */
  private editing: { turnId: string; draftBefore: string } | undefined;
  private busy = false;

  constructor(
    private readonly post: Post,
    private readonly onDraftChange: (draft: string) => void,
  ) {
    this.context = new ContextBar(post);
    this.element = el('footer', { class: 'composer' }, this.editBanner, this.context.element, this.attachments, this.input, el('div', { class: 'composer-actions' }, this.stop, this.send));
    const cancelEdit = button(l10n.t('Cancel editing'), l10n.t('Cancel'), 'ghost-button');
    cancelEdit.addEventListener('click', () => this.cancelEdit());
    this.editBanner.append(el('span', { class: 'status-note' }, l10n.t('✎ Editing your last question: Send replaces it and its answer.')), cancelEdit);
    this.send.addEventListener('click', () => this.submit());
    this.stop.addEventListener('click', () => this.requestStop());
    this.input.addEventListener('input', () => this.onDraftChange(this.input.value));
    this.input.addEventListener('keydown', (event) => {
      // isComposing: Enter that confirms an IME candidate must not send.
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
  }

  get draft(): string {
    return this.input.value;
  }

  setDraft(text: string): void {
    this.input.value = text;
    this.onDraftChange(text);
  }

  focus(): void {
    this.input.focus();
  }

  setBusy(busy: boolean): void {
    this.busy = busy;
    this.stop.hidden = !busy;
    this.send.disabled = busy;
    this.element.classList.toggle('busy', busy);
  }

  requestStop(): void {
    if (this.busy) this.post({ type: 'stop' });
    else if (this.editing) this.cancelEdit();
  }

  /** Puts the last question into the box; sending then replaces it. */
  startEdit(turnId: string, text: string): void {
    this.editing = { turnId, draftBefore: this.editing?.draftBefore ?? this.input.value };
    this.editBanner.hidden = false;
    this.setDraft(text);
    this.focus();
    this.input.setSelectionRange(text.length, text.length);
  }

  cancelEdit(): void {
    if (!this.editing) return;
    const { draftBefore } = this.editing;
    this.endEdit();
    this.setDraft(draftBefore);
  }

  /** Ends editing when the conversation shown no longer has that question last (another chat opened, or it was answered anew). */
  keepEditOnlyFor(lastQuestionId: string | undefined): void {
    if (this.editing && this.editing.turnId !== lastQuestionId) this.cancelEdit();
  }

  setAttachments(pending: AttachmentView[]): void {
    this.attachments.replaceChildren();
    if (pending.length) this.attachments.append(attachmentChips(pending, (fileId) => this.post({ type: 'removeAttachment', fileId })));
  }

  /** The code chips and (agent mode) the searched volumes of the open conversation. */
  setContext(conversation: Pick<ConversationView, 'mode' | 'pendingCode' | 'contextVolumes' | 'contextFiles'>): void {
    this.context.show(conversation);
  }

  private submit(): void {
    const text = this.input.value;
    if (this.busy || !text.trim()) return;
    if (this.editing) {
      this.post({ type: 'editQuestion', turnId: this.editing.turnId, text });
      this.endEdit();
    } else {
      this.post({ type: 'send', text });
    }
    this.setDraft('');
  }

  private endEdit(): void {
    this.editing = undefined;
    this.editBanner.hidden = true;
  }
}
