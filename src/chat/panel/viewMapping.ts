// The engine's model as the webview's view types. The protocol's view types are the model's
// own (both come from src/chat/core/conversationTypes.ts), so nothing here can drift: the
// view is a snapshot of the model's fields.
import type { Conversation } from '../core/conversationModel';
import type * as View from '../protocol';

/** A snapshot of the conversation for the view: later changes to the model do not reach it. */
export function conversationView(conversation: Conversation): View.ConversationView {
  const { id, title, mode, model, agentId, threadId, enableThinking, parameters, turns, pendingAttachments, pendingCode, contextVolumes, contextFiles, updatedAt } = conversation;
  return structuredClone({ id, title, mode, model, agentId, threadId, enableThinking, parameters, turns, pendingAttachments, pendingCode, contextVolumes, contextFiles, updatedAt });
}
