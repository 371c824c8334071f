// `ksm ask`: one question to a chat model (streamed /v3/chat/completions) or, with
// --agent, to the RAG agent (streamed /v1/apps/chat-messages), the answer written to
// stdout as it arrives; sources and the thread id go to stderr so stdout stays the answer.
import { ConfigurationError } from '../api/errors';
import { EXIT, type CliEnvironment } from './environment';
import type { Output } from './output';

export interface AskFlags {
  model?: string;
  agent?: boolean;
  /** The agent id, from its own option (so `ksm ask --agent "question"` works as written). */
  agentId?: string;
  thread?: string;
  volume: string[];
}

export async function askCommand(env: CliEnvironment, out: Output, question: string, flags: AskFlags, signal: AbortSignal): Promise<number> {
  if (!question.trim()) throw new ConfigurationError('Ask a question: ksm ask "What does the release process say about hotfixes?"');
  const model = flags.model?.trim() || process.env.KSM_MODEL?.trim() || '';
  const write = (text: string) => {
    if (!out.json) process.stdout.write(text);
  };
  let answer = '';
  if (flags.agent || flags.agentId) {
    const agentId = flags.agentId?.trim() || 'rag-agent';
    let threadId: string | undefined;
    const sources: string[] = [];
    for await (const event of env.client.streamAgentMessage(
      { agent_id: agentId, query: question, thread_id: flags.thread ?? null, context: { model, ...(flags.volume.length ? { volumes: flags.volume } : {}) } },
      { signal },
    )) {
      if (event.kind === 'thread') threadId = event.threadId;
      else if (event.kind === 'message') {
        answer += event.delta;
        write(event.delta);
      } else if (event.kind === 'retrieval') sources.push(...event.citations.map((c) => c.filename));
      else if (event.kind === 'error') throw new Error(`The agent reported an error (${event.code}): ${event.message}`);
    }
    write('\n');
    if (out.json) out.document({ agent: agentId, threadId, answer, sources });
    else {
      if (sources.length) process.stderr.write(`Sources: ${[...new Set(sources)].join(', ')}\n`);
      if (threadId) process.stderr.write(`Thread: ${threadId} (continue with --thread ${threadId})\n`);
    }
    return EXIT.ok;
  }
  if (!model) throw new ConfigurationError('No model: pass --model <id> or set KSM_MODEL (or use --agent).');
  for await (const chunk of env.client.streamChatCompletion({ model, messages: [{ role: 'user', content: question }] }, { signal })) {
    const delta = chunk.choices[0]?.delta.content ?? '';
    answer += delta;
    write(delta);
  }
  write('\n');
  if (out.json) out.document({ model, answer });
  return EXIT.ok;
}
