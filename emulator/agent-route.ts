// POST /v1/apps/chat-messages: the rag-agent, streamed as D19 events or answered as one
// AIMessage (D20). The thread and its new turn are saved before the answer goes out.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { composeAnswer } from './agent-answer';
import { validateAgentRequest } from './agent-request';
import { pieces } from './completions-route';
import type { RequestContext } from './context';
import { notFound, readJsonBody } from './http-errors';
import { countTokens } from './responder';
import { respondJson } from './respond';
import { SseWriter } from './sse';
import { upstreamAnswer } from './upstream';

export async function handleAgentMessage(ctx: RequestContext): Promise<void> {
  const request = validateAgentRequest(await readJsonBody(ctx.req), ctx.userId);
  const { threads, store } = ctx.shared;
  let thread;
  if (request.threadId) {
    thread = await threads.get(request.threadId);
    if (!thread || thread.userId !== ctx.userId || thread.agentId !== request.agentId) {
      throw notFound(`thread ${request.threadId.slice(0, 60)} does not exist for this user and agent`, 'thread_id');
    }
  } else {
    thread = threads.create(request.agentId, ctx.userId);
  }
  const composed = composeAnswer(store, request, thread, ctx.userId);
  const { citations, reasoning } = composed;
  // With an upstream model the answer is written by it, from the same retrieved snippets.
  const answer = ctx.shared.upstream
    ? await upstreamAnswer(ctx, request.model.id, [
        { role: 'system', content: `Answer from these excerpts of the user's files and cite them as [n]:\n${citations.map((c, i) => `[${i + 1}] ${c.filename}: ${c.snippet}`).join('\n') || '(no excerpt matched)'}` },
        ...thread.turns.flatMap((turn) => [{ role: 'user', content: turn.query }, { role: 'assistant', content: turn.answer }]),
        { role: 'user', content: request.query },
      ])
    : composed.answer;
  const messageId = `msg_${randomBytes(12).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  const history = thread.turns.map((turn) => `${turn.query}\n${turn.answer}`).join('\n');
  const promptTokens = countTokens(`${history}\n${request.query}\n${citations.map((c) => c.snippet).join('\n')}`);
  const reasoningTokens = reasoning === null ? null : countTokens(reasoning);
  const completionTokens = countTokens(answer) + (reasoningTokens ?? 0);
  const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, reasoning_tokens: reasoningTokens, total_tokens: promptTokens + completionTokens };
  thread.turns.push({ messageId, query: request.query, answer, reasoning, citations, tools: request.tools, created });
  await threads.save(thread);

  if (!request.stream) {
    respondJson(ctx, 200, {
      id: messageId,
      object: 'agent.message',
      created,
      agent_id: request.agentId,
      thread_id: thread.id,
      role: 'assistant',
      content: answer,
      reasoning_content: reasoning,
      citations,
      status: 'stop',
      usage,
    });
    return;
  }

  const threadId = thread.id;
  const event = (name: string, data: Record<string, unknown>) => ({ event: name, data: JSON.stringify({ thread_id: threadId, ...data }) });
  const writer = new SseWriter(ctx, {
    terminator: () => [event('done', { message_id: messageId, status: 'stop', usage })],
    errorEvents: (code, message) => [event('error', { code, message }), event('done', { message_id: messageId, status: 'error', usage })],
  });
  const events = [
    event('thread', { agent_id: request.agentId, message_id: messageId, created }),
    event('retrieval', { citations }),
    ...pieces(reasoning ?? '').map((delta) => event('reasoning', { delta })),
    ...pieces(answer).map((delta) => event('message', { message_id: messageId, delta })),
  ];
  for (const [i, item] of events.entries()) {
    if (i > 1 && ctx.shared.tokenDelayMs > 0) await sleep(ctx.shared.tokenDelayMs);
    if (!(await writer.send(item))) return;
  }
  await writer.finish();
}
