// Maps between VS Code's language-model messages and the service's chat request, without
// `vscode`: the adapter turns VS Code's part classes into these plain parts (and back), so
// the mapping — text, tool calls (D15), `role: tool` results — is proven under plain mocha.
import { BadResponseError } from '../../api/errors';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../api/types';
import { privateKeysRemoved } from '../../common/core/privateFiles';

/** One piece of a message, as VS Code's LanguageModel*Part classes carry it. */
export type NeutralPart = { kind: 'text'; text: string } | { kind: 'toolCall'; callId: string; name: string; input: object } | { kind: 'toolResult'; callId: string; text: string };

export interface NeutralMessage {
  role: 'user' | 'assistant' | 'system';
  parts: NeutralPart[];
}

/** A tool a caller offers the model (VS Code's LanguageModelChatTool). */
export interface NeutralTool {
  name: string;
  description: string;
  inputSchema?: object;
}

/**
 * The service's messages for a VS Code conversation. A user message carrying tool results
 * becomes one `role: tool` message per result (each right after the assistant message that
 * called it, as D15 and OpenAI require) followed by the user's own text, if any; an
 * assistant message's tool calls become `tool_calls` with JSON-string arguments.
 */
export function toServiceMessages(messages: readonly NeutralMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const text = message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
    if (message.role === 'assistant') {
      const calls: ToolCall[] = message.parts.flatMap((p) =>
        p.kind === 'toolCall' ? [{ id: p.callId, type: 'function' as const, function: { name: p.name, arguments: JSON.stringify(p.input ?? {}) } }] : [],
      );
      if (calls.length > 0) out.push({ role: 'assistant', content: text, tool_calls: calls });
      else if (text.trim() !== '') out.push({ role: 'assistant', content: text });
      continue;
    }
    for (const part of message.parts) {
      if (part.kind === 'toolResult') out.push({ role: 'tool', tool_call_id: part.callId, content: part.text });
    }
    if (text.trim() !== '') out.push({ role: message.role, content: text });
  }
  return out;
}

/** VS Code's tools as the service's `tools[]` (OpenAI function shape). */
export function toServiceTools(tools: readonly NeutralTool[] | undefined): ToolDefinition[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: (tool.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} } },
  }));
}

/**
 * A tool call's JSON-string arguments (D15) as the object VS Code's LanguageModelToolCallPart
 * carries; arguments that are not a JSON object are a BadResponseError naming the tool.
 */
export function parseToolArguments(name: string, args: string): object {
  if (args.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch (error) {
    throw new BadResponseError(`The model called the tool '${name}' with arguments that are not valid JSON.`, { excerpt: args.slice(0, 200), cause: error });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new BadResponseError(`The model called the tool '${name}' with arguments that are not a JSON object.`, { excerpt: args.slice(0, 200) });
  }
  return parsed;
}

/** The text of a message's text parts (what a participant or the agent sees as the question). */
export function textOf(message: NeutralMessage | undefined): string {
  return message ? message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('') : '';
}

/**
 * The messages with every private key cut out of their text and tool results
 * (privateKeysRemoved). The KSM model in VS Code's picker receives what another participant
 * composed (Copilot's #file context, a read_file tool's result): it cannot tell which file a
 * text came from, so the private-file rule it can apply is the one on content. `removed`
 * counts the keys cut.
 */
export function withoutPrivateKeys(messages: readonly NeutralMessage[]): { messages: NeutralMessage[]; removed: number } {
  let removed = 0;
  const cut = (text: string): string => {
    const result = privateKeysRemoved(text);
    removed += result.removed;
    return result.text;
  };
  const out = messages.map((message) => ({
    ...message,
    parts: message.parts.map((part): NeutralPart => (part.kind === 'text' ? { ...part, text: cut(part.text) } : part.kind === 'toolResult' ? { ...part, text: cut(part.text) } : part)),
  }));
  return { messages: out, removed };
}
