// POST /v3/chat/completions: validated (D12), answered by the local responder as one
// object or as a stream of chunks (D13, D14, D15), or forwarded to an upstream model.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { validateCompletionRequest } from './completionValidate';
import type { RequestContext } from './context';
import { readJsonBody } from './httpErrors';
import { generate, pieces, type Generation } from './responder';
import { respondJson } from './respond';
import { respondResponsesObject, streamResponses } from './responsesFormat';
import { SseWriter } from './sse';
import { forwardCompletion } from './upstream';

export async function handleCompletion(ctx: RequestContext): Promise<void> {
  const body = await readJsonBody(ctx.req);
  const request = validateCompletionRequest(body);
  if (ctx.shared.upstream) return forwardCompletion(ctx, body, request.stream);
  const generation = generate(request, ctx.shared.responseWords);
  const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.model.id;
  // D16: the same answer in the Responses interface format (an upstream model answers in the chat format, as a server ignoring output_parser would).
  if ((body as { output_parser?: unknown }).output_parser === 'responses') {
    const head = { id: `resp_${randomBytes(12).toString('hex')}`, created, model };
    return request.stream ? streamResponses(ctx, generation, head) : respondResponsesObject(ctx, generation, head);
  }
  if (!request.stream) {
    respondJson(ctx, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          finish_reason: generation.finishReason,
          message: {
            role: 'assistant',
            content: generation.content,
            reasoning_content: generation.reasoning,
            ...(generation.toolCalls.length ? { tool_calls: generation.toolCalls } : {}),
          },
          logprobs: null,
        },
      ],
      usage: usageOf(generation),
    });
    return;
  }
  await streamGeneration(ctx, generation, { id, created, model });
}

function usageOf(generation: Generation) {
  return {
    prompt_tokens: generation.promptTokens,
    completion_tokens: generation.completionTokens,
    reasoning_tokens: generation.reasoningTokens,
    total_tokens: generation.promptTokens + generation.completionTokens,
  };
}

async function streamGeneration(ctx: RequestContext, generation: Generation, head: { id: string; created: number; model: string }) {
  // The fixed part of every chunk is serialised once: per-chunk JSON.stringify of the whole
  // object was the largest cost of a fast stream (bench/emulator-sse.ts).
  const prefix = `{"id":${JSON.stringify(head.id)},"object":"chat.completion.chunk","created":${head.created},"model":${JSON.stringify(head.model)},"choices":[{"index":0,"delta":`;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, usage: unknown = null) =>
    `${prefix}${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finishReason)}}],"usage":${JSON.stringify(usage)}}`;
  const writer = new SseWriter(ctx, {
    terminator: () => [{ data: '[DONE]' }],
    errorEvents: (code, message) => [{ data: chunk({ content: JSON.stringify({ code, message }) }, 'error') }, { data: '[DONE]' }],
  });
  const delay = ctx.shared.tokenDelayMs;
  const deltas: Array<Record<string, unknown>> = [{ role: 'assistant', content: '' }];
  for (const piece of pieces(generation.reasoning ?? '')) deltas.push({ reasoning_content: piece });
  for (const piece of pieces(generation.content)) deltas.push({ content: piece });
  generation.toolCalls.forEach((call, index) => {
    deltas.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) if (part) deltas.push({ tool_calls: [{ index, function: { arguments: part } }] });
  });
  for (const [i, delta] of deltas.entries()) {
    if (i > 0 && delay > 0) await sleep(delay);
    if (!(await writer.send({ data: chunk(delta) }))) return;
  }
  if (!(await writer.send({ data: chunk({}, generation.finishReason, usageOf(generation)) }))) return;
  await writer.finish();
}
