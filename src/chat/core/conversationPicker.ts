// What the conversations quick pick (KSM: Conversations) lists, without `vscode`: one entry
// per conversation with its title, its mode and date, and all its message text as the
// detail, which the quick pick searches (`matchOnDetail`) so a question can be found by
// any word in it.
import { searchableText } from './conversationModel';
import type { ConversationView } from '../protocol';

export interface ConversationPickEntry {
  id: string;
  label: string;
  description: string;
  detail: string;
}

export function conversationPickEntry(
  conversation: ConversationView,
  formatDate: (epochMs: number) => string = (ms) => new Date(ms).toLocaleString(),
): ConversationPickEntry {
  return {
    id: conversation.id,
    label: conversation.title,
    description: `${conversation.mode === 'agent' ? 'Agent' : 'Chat'} · ${formatDate(conversation.updatedAt)}`,
    detail: searchableText(conversation),
  };
}
