// POST /v1/apps/chat-messages: the rag-agent, streamed as D19 events or answered as one
// AIMessage (D20). The answer text comes from the local extractive responder, or, with an
// upstream configured, from the upstream model (streamed through as it writes). The turn is
// committed before `done` is sent; when the client stops it early, with what was sent.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { composeAnswer } from './agentAnswer';
import type { Citation, Thread } from './agentThreads';
import { validateAgentRequest, type ValidAgentRequest } from './agentRequest';
import type { RequestContext } from './context';
import { agentEvent, agentMessageBody } from './dialects';
import { HttpError, notFound, readJsonBody } from './httpErrors';
import { countTokens, pieces } from './responder';
import { respondJson } from './respond';
import { SseWriter } from './sse';
import { upstreamDeltas } from './upstream';

async function findOrStartThread(ctx: RequestContext, request: ValidAgentRequest): Promise<Thread> {
  if (!request.threadId) return ctx.shared.threads.create(request.agentId, ctx.userId);
  const thread = await ctx.shared.threads.get(request.threadId);
  if (!thread || thread.userId !== ctx.userId || thread.agentId !== request.agentId) {
    throw notFound(`thread ${request.threadId.slice(0, 60)} does not exist for this user and agent`, 'thread_id');
  }
  return thread;
}

/** The answer as text deltas: paced local pieces, or the upstream model's stream. */
function answerDeltas(ctx: RequestContext, request: ValidAgentRequest, thread: Thread, citations: Citation[], localAnswer: string, signal: AbortSignal) {
  if (!ctx.shared.upstream) {
    return (async function* () {
      for (const [i, piece] of pieces(localAnswer).entries()) {
        if (i > 0 && ctx.shared.tokenDelayMs > 0) await sleep(ctx.shared.tokenDelayMs);
        yield piece;
      }
    })();
  }
  const excerpts = citations.map((c, i) => `[${i + 1}] ${c.filename}: ${c.snippet}`).join('\n') || '(no excerpt matched)';
  return upstreamDeltas(
    ctx,
    request.model.id,
    [
      { role: 'system', content: `Answer from these excerpts of the user's files and cite them as [n]:\n${excerpts}` },
      ...thread.turns.flatMap((turn) => [
        { role: 'user', content: turn.query },
        { role: 'assistant', content: turn.answer },
      ]),
      { role: 'user', content: request.query },
    ],
    signal,
  );
}

export async function handleAgentMessage(ctx: RequestContext): Promise<void> {
  const request = validateAgentRequest(await readJsonBody(ctx.req), ctx.userId);
  const thread = await findOrStartThread(ctx, request);
  const { citations, reasoning, answer: localAnswer } = composeAnswer(ctx.shared.store, request, thread, ctx.userId);
  const messageId = `msg_${randomBytes(12).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);
  const history = thread.turns.map((turn) => `${turn.query}\n${turn.answer}`).join('\n');
  const promptTokens = countTokens(`${history}\n${request.query}\n${citations.map((c) => c.snippet).join('\n')}`);
  const reasoningTokens = reasoning === null ? null : countTokens(reasoning);
  let answer = '';
  const usage = () => {
    const completionTokens = countTokens(answer) + (reasoningTokens ?? 0);
    return { prompt_tokens: promptTokens, completion_tokens: completionTokens, reasoning_tokens: reasoningTokens, total_tokens: promptTokens + completionTokens };
  };
  let saved = false;
  // Committed to the store before `done` goes out: a client that saw `done` (and kept the
  // thread id) finds the turn after any crash, and its next turn sees it.
  const saveTurn = () => {
    if (saved) return;
    saved = true;
    thread.turns.push({ messageId, query: request.query, answer, reasoning, citations, tools: request.tools, created });
    ctx.shared.threads.saveLastTurn(thread);
  };
  const abort = new AbortController();
  ctx.res.on('close', () => abort.abort());

  if (!request.stream) {
    for await (const delta of answerDeltas(ctx, request, thread, citations, localAnswer, abort.signal)) answer += delta;
    saveTurn();
    respondJson(
      ctx,
      200,
      agentMessageBody(ctx.shared.dialect, {
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
        usage: usage(),
      }),
    );
    return;
  }

  const event = (name: string, data: Record<string, unknown>) => agentEvent(ctx.shared.dialect, name, thread.id, data);
  const writer = new SseWriter(ctx, {
    terminator: () => [event('done', { message_id: messageId, status: 'stop', usage: usage() })],
    errorEvents: (code, message) => [event('error', { code, message }), event('done', { message_id: messageId, status: 'error', usage: usage() })],
  });
  try {
    const opening = [
      event('thread', { agent_id: request.agentId, message_id: messageId, created }),
      event('retrieval', { citations }),
      ...pieces(reasoning ?? '').map((delta) => event('reasoning', { delta })),
    ];
    for (const [i, item] of opening.entries()) {
      if (i > 1 && ctx.shared.tokenDelayMs > 0) await sleep(ctx.shared.tokenDelayMs);
      if (!(await writer.send(item))) return;
    }
    try {
      for await (const delta of answerDeltas(ctx, request, thread, citations, localAnswer, abort.signal)) {
        if (!(await writer.send(event('message', { message_id: messageId, delta })))) return;
        answer += delta;
      }
    } catch (error) {
      if (abort.signal.aborted) return;
      const status = error instanceof HttpError ? error.status : 502;
      saveTurn();
      return await writer.fail(status, (error as Error).message);
    }
    saveTurn();
    await writer.finish();
  } finally {
    saveTurn(); // a stopped or failed answer keeps what was sent
  }
}
