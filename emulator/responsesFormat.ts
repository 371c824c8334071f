// `output_parser: "responses"` (contract D16): the same generation as the chat format, written
// in OpenAI's Responses interface shape. Streamed: `event:` + `data:` lines, each data a JSON
// object with its `type` and a rising `sequence_number`, reasoning items (reasoning models)
// before the message item, function calls with their arguments in pieces, and
// `response.completed` (or `response.incomplete` at the token limit) last, with no `[DONE]`.
// Plain: one `Response` object. test/emulator/responsesFormat.test.ts parses both with the
// official `openai` package's types.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext } from './context';
import { pieces, type Generation } from './responder';
import { respondJson } from './respond';
import { SseWriter, type SseEvent } from './sse';

interface Head {
  id: string;
  created: number;
  model: string;
}

type Item = Record<string, unknown> & { id: string; type: string };

function usageOf(generation: Generation) {
  return {
    input_tokens: generation.promptTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: generation.completionTokens,
    output_tokens_details: { reasoning_tokens: generation.reasoningTokens ?? 0 },
    total_tokens: generation.promptTokens + generation.completionTokens,
  };
}

const itemId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** The output items of a generation, finished: reasoning, then the message, then function calls. */
function outputItems(generation: Generation, ids: { reasoning: string; message: string; calls: string[] }): Item[] {
  const items: Item[] = [];
  if (generation.reasoning) {
    items.push({ id: ids.reasoning, type: 'reasoning', summary: [{ type: 'summary_text', text: generation.reasoning }] });
  }
  if (generation.content || generation.toolCalls.length === 0) {
    items.push({
      id: ids.message,
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: generation.content, annotations: [] }],
    });
  }
  generation.toolCalls.forEach((call, i) => {
    items.push({ id: ids.calls[i], type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments, status: 'completed' });
  });
  return items;
}

function responseObject(head: Head, generation: Generation | undefined, status: 'in_progress' | 'completed' | 'incomplete', output: Item[]) {
  return {
    id: head.id,
    object: 'response',
    created_at: head.created,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    model: head.model,
    output,
    parallel_tool_calls: true,
    temperature: null,
    top_p: null,
    tool_choice: 'auto',
    tools: [],
    usage: generation && status !== 'in_progress' ? usageOf(generation) : null,
  };
}

const statusOf = (generation: Generation) => (generation.finishReason === 'length' ? 'incomplete' : 'completed');

export function respondResponsesObject(ctx: RequestContext, generation: Generation, head: Head): void {
  const ids = { reasoning: itemId('rs'), message: itemId('msg'), calls: generation.toolCalls.map(() => itemId('fc')) };
  respondJson(ctx, 200, responseObject(head, generation, statusOf(generation), outputItems(generation, ids)));
}

export async function streamResponses(ctx: RequestContext, generation: Generation, head: Head): Promise<void> {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>): SseEvent => ({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
  const ids = { reasoning: itemId('rs'), message: itemId('msg'), calls: generation.toolCalls.map(() => itemId('fc')) };
  const done = outputItems(generation, ids);
  const status = statusOf(generation);
  const writer = new SseWriter(ctx, {
    terminator: () => [event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response: responseObject(head, generation, status, done) })],
    errorEvents: (code, message) => [event('error', { code: String(code), message, param: null })],
  });
  const events: SseEvent[] = [
    event('response.created', { response: responseObject(head, undefined, 'in_progress', []) }),
    event('response.in_progress', { response: responseObject(head, undefined, 'in_progress', []) }),
  ];
  done.forEach((item, outputIndex) => {
    if (item.type === 'reasoning') {
      events.push(event('response.output_item.added', { output_index: outputIndex, item: { id: item.id, type: 'reasoning', summary: [] } }));
      events.push(event('response.reasoning_summary_part.added', { item_id: item.id, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } }));
      for (const piece of pieces(generation.reasoning ?? '')) {
        events.push(event('response.reasoning_summary_text.delta', { item_id: item.id, output_index: outputIndex, summary_index: 0, delta: piece }));
      }
      events.push(event('response.reasoning_summary_text.done', { item_id: item.id, output_index: outputIndex, summary_index: 0, text: generation.reasoning }));
      events.push(event('response.reasoning_summary_part.done', { item_id: item.id, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: generation.reasoning } }));
    } else if (item.type === 'message') {
      events.push(event('response.output_item.added', { output_index: outputIndex, item: { id: item.id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } }));
      events.push(event('response.content_part.added', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
      for (const piece of pieces(generation.content)) {
        events.push(event('response.output_text.delta', { item_id: item.id, output_index: outputIndex, content_index: 0, delta: piece, logprobs: [] }));
      }
      events.push(event('response.output_text.done', { item_id: item.id, output_index: outputIndex, content_index: 0, text: generation.content, logprobs: [] }));
      events.push(event('response.content_part.done', { item_id: item.id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: generation.content, annotations: [] } }));
    } else {
      const args = String(item.arguments);
      events.push(event('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } }));
      const half = Math.ceil(args.length / 2);
      for (const part of [args.slice(0, half), args.slice(half)]) {
        if (part) events.push(event('response.function_call_arguments.delta', { item_id: item.id, output_index: outputIndex, delta: part }));
      }
      events.push(event('response.function_call_arguments.done', { item_id: item.id, output_index: outputIndex, arguments: args }));
    }
    events.push(event('response.output_item.done', { output_index: outputIndex, item }));
  });
  const delay = ctx.shared.tokenDelayMs;
  for (const [i, next] of events.entries()) {
    if (i > 0 && delay > 0) await sleep(delay);
    if (!(await writer.send(next))) return;
  }
  await writer.finish();
}
