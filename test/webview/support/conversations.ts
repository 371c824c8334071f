// Builders for the host messages the tests send.
import type { ConversationView, HostToWebview, ModelOptions, TurnView } from '../../../src/chat/protocol';

export const modelOptions: ModelOptions = {
  models: ['ksm-chat-small', 'ksm-chat-large', 'ksm-reasoner'],
  reasoningModels: ['ksm-reasoner'],
  defaultModel: 'ksm-chat-small',
  agentId: 'agent-42',
  agentModel: 'ksm-agent-model',
};

export function conversation(turns: TurnView[], overrides: Partial<ConversationView> = {}): ConversationView {
  return {
    id: 'conv-1',
    title: 'First conversation',
    mode: 'chat',
    model: 'ksm-chat-small',
    parameters: {},
    turns,
    pendingAttachments: [],
    updatedAt: Date.UTC(2026, 10, 20, 9, 30),
    ...overrides,
  };
}

export function userTurn(id: string, content: string): TurnView {
  return { id, role: 'user', content, createdAt: 1 };
}

export function assistantTurn(id: string, content: string, patch: Partial<TurnView> = {}): TurnView {
  return { id, role: 'assistant', content, state: 'done', createdAt: 2, ...patch };
}

export function init(view: ConversationView, options: ModelOptions = modelOptions): HostToWebview {
  return {
    type: 'init',
    conversation: view,
    conversations: [{ id: view.id, title: view.title, mode: view.mode, updatedAt: view.updatedAt }],
    options,
  };
}

/** Cuts text into pieces of varying size (deterministic), like network chunks. */
export function chunk(text: string, seed = 7): string[] {
  const pieces: string[] = [];
  let state = seed;
  for (let index = 0; index < text.length;) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const size = 1 + (state % 17);
    pieces.push(text.slice(index, index + size));
    index += size;
  }
  return pieces;
}

/** Questions and answers of varied length, each answer with a code block. */
export function longConversationTurns(count: number): TurnView[] {
  const turns: TurnView[] = [];
  for (let index = 0; turns.length < count; index++) {
    turns.push(userTurn(`u${index}`, `Question ${index}: how do I call the service ${index % 7 === 0 ? 'with a long explanation '.repeat(8) : ''}?`));
    if (turns.length === count) break;
    const lines = 3 + (index % 9);
    const code = Array.from({ length: lines }, (_, line) => `const value${line} = await client.call(${index}, ${line});`).join('\n');
    const prose = 'The service answers with a streamed reply and citations. '.repeat(1 + (index % 5));
    turns.push(assistantTurn(`a${index}`, `Answer ${index}. ${prose}\n\n\`\`\`ts\n${code}\n\`\`\`\n\nThat is all for ${index}.`));
  }
  return turns;
}
