// Check Connection's steps that ask for an answer: one streamed token of the default model
// (time to the first chunk) and, only when the user agreed, one tiny agent question (it
// starts a thread on the service).
import * as l10n from '@vscode/l10n';
import type { CheckStep } from './checkRun';
import { fixFor } from '../../common/core/errorFixes';

const PING = 'Reply with one word: ok';

export const modelStep: CheckStep = {
  id: 'model',
  get title() {
    return l10n.t('Model answers (streamed, one token)');
  },
  async run(check) {
    const { model } = check.target;
    const title = l10n.t("Model '{0}' answers (streamed, one token)", model || l10n.t('(none)'));
    if (!model) {
      check.add({ id: 'model', title, status: 'failed', detail: l10n.t('No chat model is configured.'), problem: 'model', fix: fixFor('model', { ...check.fixContext, model: undefined }) });
      return undefined;
    }
    const start = check.now();
    let firstChunkMs: number | undefined;
    let text = '';
    let finish: string | undefined;
    const streamed = await check.timed(async () => {
      const stream = check.client().streamChatCompletion({ model, messages: [{ role: 'user', content: PING }], max_completion_tokens: 1 }, { signal: check.signal });
      for await (const chunk of stream) {
        firstChunkMs ??= Math.round(check.now() - start);
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
    });
    if (streamed.error) {
      check.failed('model', title, streamed.error, 'model', streamed.ms);
      return undefined;
    }
    const detail = finish
      ? l10n.t("First chunk after {0} ms, stream ended with [DONE] after {1} ms (finish_reason '{2}'); answer {3}.", firstChunkMs ?? '?', streamed.ms, finish, JSON.stringify(text.slice(0, 20)))
      : l10n.t('First chunk after {0} ms, stream ended with [DONE] after {1} ms; answer {2}.', firstChunkMs ?? '?', streamed.ms, JSON.stringify(text.slice(0, 20)));
    check.add({ id: 'model', title, status: 'passed', ms: firstChunkMs, detail });
    return undefined;
  },
};

export const agentStep: CheckStep = {
  id: 'agent',
  get title() {
    return l10n.t('Agent answers a tiny question');
  },
  async run(check) {
    const { agentId, agentModel, model } = check.target;
    const title = l10n.t("Agent '{0}' answers a tiny question", agentId);
    if (!check.target.askAgent) {
      check.add({ id: 'agent', title, status: 'skipped', detail: l10n.t('Not asked: you chose the read-only check (an agent question starts a thread on the service).') });
      return undefined;
    }
    const start = check.now();
    let firstEventMs: number | undefined;
    const kinds: string[] = [];
    let threadId = '';
    let text = '';
    const asked = await check.timed(async () => {
      const stream = check.client().streamAgentMessage({ agent_id: agentId, query: PING, context: { model: agentModel || model } }, { signal: check.signal });
      for await (const event of stream) {
        firstEventMs ??= Math.round(check.now() - start);
        kinds.push(event.kind === 'unknown' ? `unknown '${event.event}'` : event.kind);
        if ('threadId' in event && event.threadId && !threadId) threadId = event.threadId;
        if (event.kind === 'message') text += event.delta;
        if (event.kind === 'error') throw Object.assign(new Error(l10n.t('The agent reported an error: {0}', event.message)), { agentCode: event.code });
      }
    });
    if (asked.error) {
      check.failed('agent', title, asked.error, 'agent', asked.ms, { model: agentModel || model });
      return undefined;
    }
    const problems = [!threadId && l10n.t('no thread id arrived'), !text && l10n.t('no answer text arrived')].filter(Boolean) as string[];
    const detail = l10n.t(
      'First event after {0} ms, ended after {1} ms; events: {2}; thread id {3}; answer {4}.',
      firstEventMs ?? '?',
      asked.ms,
      summarizeKinds(kinds),
      threadId ? l10n.t('received') : l10n.t('missing'),
      JSON.stringify(text.slice(0, 20)),
    );
    check.add(
      problems.length
        ? { id: 'agent', title, status: 'warning', ms: firstEventMs, detail: `${detail} But ${problems.join(' and ')}.`, problem: 'stream', fix: fixFor('stream', check.fixContext) }
        : { id: 'agent', title, status: 'passed', ms: firstEventMs, detail },
    );
    return undefined;
  },
};

/** "message ×3, end": runs of the same event kind counted. */
function summarizeKinds(kinds: string[]): string {
  // Counted as runs, never by reading the text written so far (an unknown event's name is the server's).
  const runs: Array<{ kind: string; count: number }> = [];
  for (const kind of kinds) {
    const last = runs[runs.length - 1];
    if (last?.kind === kind) last.count++;
    else runs.push({ kind, count: 1 });
  }
  return runs.map(({ kind, count }) => (count > 1 ? `${kind} ×${count}` : kind)).join(', ') || 'none';
}
