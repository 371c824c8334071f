// VS Code's language-model part classes <-> the core's plain parts. Only this file knows
// the classes; anything it does not know (images, data parts, proposed thinking parts) is
// left out rather than guessed at.
import * as vscode from 'vscode';
import type { NeutralMessage, NeutralPart, NeutralTool } from '../core/messageMapping';
import type { ResponsePart } from '../core/modelResponse';
import type { LanguageModelChatRequestMessage, LanguageModelResponsePart } from './providerApi';

/** LanguageModelChatMessageRole.System is 3 in VS Code, but only a proposed API names it. */
const SYSTEM_ROLE = 3;

export function toNeutralMessage(message: LanguageModelChatRequestMessage | vscode.LanguageModelChatMessage): NeutralMessage {
  const role = message.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : (message.role as number) === SYSTEM_ROLE ? 'system' : 'user';
  const parts: NeutralPart[] = [];
  for (const part of message.content as ReadonlyArray<unknown>) {
    if (part instanceof vscode.LanguageModelTextPart) parts.push({ kind: 'text', text: part.value });
    else if (part instanceof vscode.LanguageModelToolCallPart) parts.push({ kind: 'toolCall', callId: part.callId, name: part.name, input: part.input });
    else if (part instanceof vscode.LanguageModelToolResultPart) parts.push({ kind: 'toolResult', callId: part.callId, text: toolResultText(part.content) });
  }
  return { role, parts };
}

/** A tool result's content as text: its text parts; other parts carrying text (prompt-tsx data) by their `value`. */
export function toolResultText(content: readonly unknown[]): string {
  return content
    .map((part) => {
      if (part instanceof vscode.LanguageModelTextPart) return part.value;
      const value = (part as { value?: unknown } | undefined)?.value;
      return typeof value === 'string' ? value : '';
    })
    .join('');
}

export function toNeutralTools(tools: readonly vscode.LanguageModelChatTool[] | undefined): NeutralTool[] {
  return (tools ?? []).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
}

export function toVscodePart(part: ResponsePart): LanguageModelResponsePart {
  return part.kind === 'text' ? new vscode.LanguageModelTextPart(part.text) : new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input);
}
