// The engine's model as the webview's view types. The protocol repeats the model's shapes
// because it imports nothing (both bundles include it); the checks below make the compiler
// refuse any drift between the two, so a field added on one side must be added on the other.
import type {
  AnswerState,
  AttachedFile,
  ChatMode,
  ChatParameters,
  CodeContext,
  ContextVolume,
  Conversation,
  ConversationSummary,
  ModelOptions,
  SourceCitation,
  TokenUsage,
  Turn,
} from '../core/conversationModel';
import type * as View from '../protocol';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Each entry is `true` only while the view type and the model type are the same shape. */
export type ViewMirrorsModel = [
  Same<ChatMode, View.ChatMode>,
  Same<AnswerState, View.AnswerState>,
  Same<TokenUsage, View.UsageView>,
  Same<SourceCitation, View.CitationView>,
  Same<AttachedFile, View.AttachmentView>,
  Same<CodeContext, View.CodeContextView>,
  Same<ContextVolume, View.ContextVolumeView>,
  Same<ChatParameters, View.ChatParameters>,
  Same<Turn, View.TurnView>,
  Same<Conversation, View.ConversationView>,
  Same<ConversationSummary, View.ConversationSummary>,
  Same<ModelOptions, View.ModelOptions>,
];
const mirrors: ViewMirrorsModel = [true, true, true, true, true, true, true, true, true, true, true, true];
void mirrors;

/** A snapshot of the conversation for the view: later changes to the model do not reach it. */
export function conversationView(conversation: Conversation): View.ConversationView {
  const { id, title, mode, model, agentId, threadId, enableThinking, parameters, turns, pendingAttachments, pendingCode, contextVolumes, contextFiles, updatedAt } = conversation;
  return structuredClone({ id, title, mode, model, agentId, threadId, enableThinking, parameters, turns, pendingAttachments, pendingCode, contextVolumes, contextFiles, updatedAt });
}
