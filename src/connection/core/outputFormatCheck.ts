// Check Connection's answer-format step (contract D16): one small plain request with
// `output_parser: "responses"` tells whether the service honours it (a Responses object came
// back) or ignores it (a chat completion came back). Either way the extension reads the
// answer; the step says which format works and whether `ksm.chat.outputFormat` asks for one
// the service does not speak.
import * as l10n from '@vscode/l10n';
import type { OutputFormat } from '../../api/chatParameterLimits';
import type { KsmService } from '../../api/service';
import type { CheckStep } from './checkRun';

export interface OutputFormatStep {
  id: 'output-format';
  title: string;
  status: 'passed' | 'warning';
  ms?: number;
  detail: string;
  fix?: string;
}

const outputFormatTitle = (): string => l10n.t("Answer format: the service honours output_parser 'responses'");

export async function checkOutputFormat(client: KsmService, model: string, setting: OutputFormat, options: { signal?: AbortSignal; now?: () => number } = {}): Promise<OutputFormatStep> {
  const now = options.now ?? (() => performance.now());
  const start = now();
  try {
    const answer = await client.createChatCompletion(
      { model, messages: [{ role: 'user', content: 'Reply with one word: ok' }], max_completion_tokens: 1, output_parser: 'responses' },
      { signal: options.signal },
    );
    const ms = Math.round(now() - start);
    if (answer.outputFormat === 'responses') {
      return {
        id: 'output-format',
        title: outputFormatTitle(),
        status: 'passed',
        ms,
        detail: l10n.t("It answered in the Responses format: both formats work (ksm.chat.outputFormat is '{0}').", setting),
      };
    }
    const detail = l10n.t('It ignored output_parser and answered in the chat format: only the chat format works; the extension still reads these answers.');
    return setting === 'responses'
      ? { id: 'output-format', title: outputFormatTitle(), status: 'warning', ms, detail, fix: l10n.t("Set 'ksm.chat.outputFormat' to 'chat', the format this service speaks.") }
      : { id: 'output-format', title: outputFormatTitle(), status: 'passed', ms, detail: l10n.t("{0} ksm.chat.outputFormat is 'chat'.", detail) };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const why = error instanceof Error ? error.message : String(error);
    return {
      id: 'output-format',
      title: outputFormatTitle(),
      status: 'warning',
      ms: Math.round(now() - start),
      detail: l10n.t("A request with output_parser 'responses' failed: {0}", why),
      fix: setting === 'responses' ? l10n.t("Set 'ksm.chat.outputFormat' to 'chat': the model answered in the chat format above.") : undefined,
    };
  }
}

/**
 * The step in Check Connection's list (connectionCheck.ts): after the model answered, the
 * same model once more with `output_parser: "responses"`; never stops the run.
 */
export const outputFormatStep: CheckStep = {
  id: 'output-format',
  get title() {
    return outputFormatTitle();
  },
  async run(check) {
    const model = check.report.steps.find((s) => s.id === 'model');
    if (model?.status !== 'passed') {
      check.add({ id: 'output-format', title: outputFormatTitle(), status: 'skipped', detail: l10n.t('Not run: the model did not answer.') });
      return undefined;
    }
    check.add(await checkOutputFormat(check.client(), check.target.model, check.target.outputFormat ?? 'chat', { signal: check.signal, now: () => check.now() }));
    return undefined;
  },
};
