// The local responder: a deterministic echo/extractive "model". It restates the last user
// question, pads the answer to `responseWords` with sentences built from the prompt's own
// words (chosen by a seeded PRNG), adds a fenced code block when the prompt is about code,
// and obeys response_format, tools, stop and max_completion_tokens.
//
// Repeatability: the PRNG seed is `seed` when given; with temperature 0 it is a hash of the
// messages; otherwise it is random, so two requests differ (the reference: "unset or -1
// gives a different result each request").
//
// Tool-call rule (D15): when tools are offered and the last message is from the user and
// names one of the tools (its name, or the name with _ and - read as spaces, case-insensitive),
// the answer is a call of that tool with arguments generated from its parameter schema;
// double-quoted strings in the prompt fill the string arguments. When several tools are
// named, the one named last wins, and the quotes after that mention fill its arguments:
// chat clients such as VS Code's agent put their own instructions (which name other tools)
// before the user's request. After a `tool` message the answer quotes the tool's result.
import { randomInt } from 'node:crypto';
import { decode, encode } from 'gpt-tokenizer';
import type { ToolCall, ValidCompletionRequest } from './completionValidate';
import { words as wordsOf } from './embedder';
import { boundedValueForSchema } from './schemaValue';

export interface Generation {
  reasoning: string | null;
  content: string;
  toolCalls: ToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number | null;
}

const CODE_TOPIC = /\b(code|function|typescript|javascript|python|snippet|implement|script|class|method|bug|compile)\b/i;
const FILLER = [
  'This answer comes from the local emulator, which restates questions instead of reasoning about them.',
  'Point the extension at a real service, or start the emulator with an upstream model, for real answers.',
  'The words of your question were: {w}.',
  'A real model would now explain {w} in detail.',
  'Streaming, stop sequences, token limits and usage counts behave as the service documents them.',
  'The key terms here seem to be {w}.',
];

export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashText(text: string): number {
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** Word-sized pieces, each keeping its trailing whitespace so the pieces join back exactly. */
export function pieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

export function countTokens(text: string): number {
  return text ? encode(text).length : 0;
}

export function promptTokens(messages: Array<{ role: string; content: string }>): number {
  // ~3 tokens of framing per message, as chat formats add.
  return messages.reduce((sum, message) => sum + 3 + countTokens(message.content), 3);
}

/** Sentences of about `count` words made from the prompt's words. */
export function fillerText(random: () => number, promptWords: string[], count: number): string {
  const distinct = [...new Set(promptWords)];
  const pickThree = () => {
    const pool = distinct.length ? [...distinct] : ['this', 'question'];
    const picked: string[] = [];
    while (picked.length < 3 && pool.length) picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
    return picked.join(', ');
  };
  const sentences: string[] = [];
  let total = 0;
  while (total < count) {
    const template = FILLER[Math.floor(random() * FILLER.length)];
    const sentence = template.replace('{w}', pickThree);
    sentences.push(sentence);
    total += sentence.split(/\s+/).length;
  }
  return sentences.join(' ');
}

function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function codeBlock(question: string): string {
  const python = /\bpython\b/i.test(question);
  return python
    ? '```python\ndef answer(question: str) -> str:\n    return f"You asked: {question}"\n```'
    : '```typescript\nexport function answer(question: string): string {\n  return `You asked: ${question}`;\n}\n```';
}

/** The tool named last in `text`, and where that mention ends. */
function toolMentioned(request: ValidCompletionRequest, text: string): { tool: ValidCompletionRequest['tools'][number]; after: number } | undefined {
  const lower = text.toLowerCase();
  let best: { tool: ValidCompletionRequest['tools'][number]; after: number } | undefined;
  for (const tool of request.tools) {
    const name = tool.name.toLowerCase();
    for (const form of [name, name.replace(/[_-]/g, ' ')]) {
      const at = lower.lastIndexOf(form);
      if (at >= 0 && (!best || at + form.length > best.after)) best = { tool, after: at + form.length };
    }
  }
  return best;
}

export function generate(request: ValidCompletionRequest, responseWords: number): Generation {
  const messages = request.messages;
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const seed = request.seed ?? (request.temperature === 0 ? hashText(JSON.stringify(messages)) : randomInt(2 ** 31));
  const random = mulberry32(seed);
  const promptWords = wordsOf(lastUser).filter((w) => w.length > 2);
  const mention = last.role === 'user' ? toolMentioned(request, last.content) : undefined;
  const quotesOf = (text: string) => [...text.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const afterMention = mention ? quotesOf(last.content.slice(mention.after)) : [];
  const quoted = afterMention.length ? afterMention : quotesOf(lastUser);
  let quoteIndex = 0;
  const stringFill = () => quoted[quoteIndex++] ?? fillerText(random, promptWords, 3).split(/\s+/).slice(0, 4).join(' ');
  const base = { promptTokens: promptTokens(messages), reasoningTokens: null as number | null };

  let reasoning: string | null = null;
  if (request.model.reasoning) {
    const effortWords = { low: 20, medium: 40, high: 80 }[request.reasoning?.effort ?? 'medium'];
    reasoning = `The user asks: "${excerpt(lastUser, 120)}". ` + fillerText(random, promptWords, effortWords);
    if (request.reasoning?.budgetTokens !== undefined) reasoning = truncateTokens(reasoning, request.reasoning.budgetTokens).text;
    base.reasoningTokens = countTokens(reasoning);
  }

  const tool = mention?.tool;
  if (tool) {
    const args = boundedValueForSchema(tool.parameters ?? { type: 'object', properties: {} }, stringFill, 'tools');
    const call: ToolCall = { id: `call_${seed.toString(36)}${messages.length}`, type: 'function', function: { name: tool.name, arguments: JSON.stringify(args) } };
    return { ...base, reasoning, content: '', toolCalls: [call], finishReason: 'tool_calls', completionTokens: countTokens(call.function.arguments) + (base.reasoningTokens ?? 0) };
  }

  let content: string;
  if (request.responseFormat.type === 'json_schema') {
    content = JSON.stringify(boundedValueForSchema(request.responseFormat.schema, stringFill, 'response_format'));
  } else if (request.responseFormat.type === 'json_object') {
    content = JSON.stringify({ question: excerpt(lastUser), answer: fillerText(random, promptWords, Math.min(responseWords, 30)) });
  } else if (last.role === 'tool') {
    const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id);
    content = `The tool ${call?.function.name ?? last.tool_call_id} answered: ${excerpt(last.content, 400)}`;
  } else {
    content = `You asked: "${excerpt(lastUser)}". ${fillerText(random, promptWords, responseWords)}`;
    if (CODE_TOPIC.test(lastUser)) content += `\n\n${codeBlock(lastUser)}\n`;
  }

  let finishReason: Generation['finishReason'] = 'stop';
  const stopAt = Math.min(...request.stop.map((s) => content.indexOf(s)).filter((i) => i >= 0));
  if (Number.isFinite(stopAt)) content = content.slice(0, stopAt);
  if (request.maxCompletionTokens !== undefined) {
    const cut = truncateTokens(content, request.maxCompletionTokens);
    if (cut.truncated) finishReason = 'length';
    content = cut.text;
  }
  return { ...base, reasoning, content, toolCalls: [], finishReason, completionTokens: countTokens(content) + (base.reasoningTokens ?? 0) };
}

function truncateTokens(text: string, max: number): { text: string; truncated: boolean } {
  const tokens = encode(text);
  if (tokens.length <= max) return { text, truncated: false };
  return { text: decode(tokens.slice(0, max)), truncated: true };
}
