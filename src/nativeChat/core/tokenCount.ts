// Token counts for VS Code's prompt budgeting, from a real BPE tokenizer (gpt-tokenizer),
// not `length / 4`. The tokenizer loads on the first count, never at activation.
import type { NeutralMessage } from './messageMapping';

/** What every chat message adds around its content (the OpenAI chat format's framing). */
export const TOKENS_PER_MESSAGE = 3;

let encoder: Promise<(text: string) => number[]> | undefined;

function loadEncoder(): Promise<(text: string) => number[]> {
  encoder ??= import('./tokenizer').then((m) => m.encode);
  return encoder;
}

export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  const encode = await loadEncoder();
  return encode(text).length;
}

/** A message's tokens: its texts, tool calls (name and JSON input) and tool results, plus the framing. */
export async function countMessageTokens(message: NeutralMessage): Promise<number> {
  const encode = await loadEncoder();
  let total = TOKENS_PER_MESSAGE;
  for (const part of message.parts) {
    if (part.kind === 'text') total += encode(part.text).length;
    else if (part.kind === 'toolCall') total += encode(part.name).length + encode(JSON.stringify(part.input)).length;
    else total += encode(part.text).length;
  }
  return total;
}
