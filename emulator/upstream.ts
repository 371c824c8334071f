// Forwards a completion to an OpenAI-compatible upstream (for example Ollama), so a user can
// try the extension against a real model. Streams pass through as they arrive; an upstream
// failure becomes a D2 error (before the stream) or a D14 error chunk (during it).
import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';
import type { RequestContext } from './context';
import { HttpError } from './httpErrors';
import { respondJson } from './respond';
import { SseWriter } from './sse';

/** Fields the reference has that OpenAI-compatible servers do not know. */
const SERVICE_ONLY_FIELDS = ['repetition_penalty', 'output_parser', 'reasoning', 'metadata'];

export async function callUpstream(ctx: RequestContext, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  const upstream = ctx.shared.upstream!;
  const forwarded: Record<string, unknown> = { ...body };
  for (const field of SERVICE_ONLY_FIELDS) delete forwarded[field];
  if (upstream.model) forwarded.model = upstream.model;
  if (forwarded.stream) forwarded.stream_options = { include_usage: true };
  let answer: Response;
  try {
    answer = await fetch(`${upstream.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(upstream.apiKey ? { Authorization: `Bearer ${upstream.apiKey}` } : {}) },
      body: JSON.stringify(forwarded),
      signal,
    });
  } catch (error) {
    throw new HttpError(502, `upstream model server unreachable: ${(error as Error).message}`);
  }
  if (!answer.ok) {
    const text = (await answer.text().catch(() => '')).slice(0, 300);
    throw new HttpError(502, `upstream answered ${answer.status}: ${text}`);
  }
  return answer;
}

export async function forwardCompletion(ctx: RequestContext, body: Record<string, unknown>, stream: boolean): Promise<void> {
  const abort = new AbortController();
  ctx.res.on('close', () => abort.abort());
  const answer = await callUpstream(ctx, body, abort.signal);
  const requestedModel = body.model as string;
  if (!stream) {
    const json = (await answer.json()) as Record<string, unknown>;
    respondJson(ctx, 200, { ...json, model: requestedModel });
    return;
  }
  const writer = new SseWriter(ctx, {
    terminator: () => [{ data: '[DONE]' }],
    errorEvents: (code, message) => [
      {
        data: JSON.stringify({
          id: 'chatcmpl-upstream',
          object: 'chat.completion.chunk',
          created: Math.floor(Date.now() / 1000),
          model: requestedModel,
          choices: [{ index: 0, delta: { content: JSON.stringify({ code, message }) }, finish_reason: 'error' }],
          usage: null,
        }),
      },
      { data: '[DONE]' },
    ],
  });
  try {
    for await (const data of sseDataLines(answer)) {
      if (data === '[DONE]') break;
      const parsed = JSON.parse(data) as Record<string, unknown>;
      if (!(await writer.send({ data: JSON.stringify({ ...parsed, model: requestedModel }) }))) return;
    }
    await writer.finish();
  } catch (error) {
    if (!abort.signal.aborted) await writer.fail(502, `upstream stream failed: ${(error as Error).message}`);
  }
}

/** The `data:` payloads of an SSE body (eventsource-parser does the line protocol). */
export async function* sseDataLines(answer: Response): AsyncGenerator<string> {
  if (!answer.body) return;
  const events = answer.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const event of events as unknown as AsyncIterable<EventSourceMessage>) yield event.data;
}

/** The content deltas of a streamed upstream answer, for the rag-agent. */
export async function* upstreamDeltas(ctx: RequestContext, model: string, messages: Array<{ role: string; content: string }>, signal: AbortSignal): AsyncGenerator<string> {
  const answer = await callUpstream(ctx, { model, messages, stream: true }, signal);
  for await (const data of sseDataLines(answer)) {
    if (data === '[DONE]') return;
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null }; finish_reason?: string | null }> };
    const choice = chunk.choices?.[0];
    if (choice?.finish_reason === 'error') throw new HttpError(502, `upstream stream error: ${choice.delta?.content ?? ''}`);
    if (choice?.delta?.content) yield choice.delta.content;
  }
  throw new HttpError(502, 'upstream stream ended without [DONE]');
}
