// The models the emulator serves (D21).
export interface ChatModel {
  id: string;
  reasoning: boolean;
}

export const CHAT_MODELS: ReadonlyMap<string, ChatModel> = new Map([
  ['emu-chat', { id: 'emu-chat', reasoning: false }],
  ['emu-reasoner', { id: 'emu-reasoner', reasoning: true }],
]);
