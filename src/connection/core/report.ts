// The Check Connection report as Markdown, for the user and for the service's
// administrators (Copy Report): the verdict and first failure on top, then each step with
// its result, latency and fix, the response shapes seen and the tolerant reading paths
// used. The whole text passes redactSecrets with the key last, whatever a server echoed.
import { redactSecrets } from '../../api/errors';
import { COMMAND, type CommandId } from '../../common/core/contributionIds';
import { asSentence, type ConnectionReport, type StepResult } from './checkRun';
import type { Problem } from '../../common/core/errorFixes';

// Plain words, not emoji: the report is pasted into mail and tickets, and fonts vary.
const MARK: Record<StepResult['status'], string> = { passed: 'passed', failed: '**FAILED**', warning: 'warning', skipped: 'skipped' };

export function firstFailure(report: ConnectionReport): StepResult | undefined {
  return report.steps.find((step) => step.status === 'failed');
}

export function verdict(report: ConnectionReport): string {
  const failure = firstFailure(report);
  const ran = report.steps.filter((s) => s.status !== 'skipped');
  const passed = ran.filter((s) => s.status === 'passed').length;
  if (failure) return `First failing step: ${asSentence(failure.title)} ${asSentence(failure.detail)}`;
  const warnings = report.steps.filter((s) => s.status === 'warning');
  if (warnings.length) return `All ${ran.length} steps ran; ${warnings.length} with a warning (${warnings.map((w) => w.title).join(', ')}).`;
  return `All ${passed} steps passed.`;
}

export interface FixAction {
  title: string;
  command: CommandId;
  /** For Open Settings: the setting to show. */
  argument?: string;
}

/** The settings each problem is fixed in (Open Settings shows it). */
const SETTING_OF: Partial<Record<Problem, string>> = {
  address: 'ksm.baseUrl',
  refused: 'ksm.baseUrl',
  'not-the-api': 'ksm.baseUrl',
  certificate: 'ksm.network.caBundle',
  timeout: 'ksm.request.timeoutSeconds',
  'user-id': 'ksm.userId',
  volume: 'ksm.volumes.list',
  model: 'ksm.chat.models',
  agent: 'ksm.agent.id',
};

/** The buttons of the check's notification: the fix of the first failure (Set API Key, Open Settings), then Copy Report. */
export function fixActions(report: ConnectionReport): FixAction[] {
  const problem = firstFailure(report)?.problem ?? report.steps.find((step) => step.status === 'warning')?.problem;
  const actions: FixAction[] = [];
  if (problem === 'key' || problem === 'no-key') actions.push({ title: 'Set API Key', command: COMMAND.setApiKey });
  const setting = problem && SETTING_OF[problem];
  if (setting) actions.push({ title: 'Open Settings', command: COMMAND.openSettings, argument: setting });
  return actions;
}

export function renderReport(report: ConnectionReport, secrets: ReadonlyArray<string | undefined>): string {
  const { target } = report;
  const failure = firstFailure(report);
  const lines: string[] = [
    '# KSM Connection Check',
    '',
    `**${failure ? 'Failed' : 'Connected'}.** ${verdict(report)}`,
    ...(failure?.fix ? ['', `**Fix:** ${failure.fix}`] : []),
    '',
    `- Checked: ${report.startedAt.toISOString()}${target.client ? ` with ${target.client}` : ''}`,
    `- Service address (ksm.baseUrl): ${target.baseUrl || '(not set)'}`,
    `- Proxy: ${target.network.proxy ?? 'none'}${target.network.noProxy?.length ? `; bypassed for ${target.network.noProxy.join(', ')}` : ''}`,
    `- TLS: ${target.network.strictSSL ? 'certificates verified' : 'certificates NOT verified (http.proxyStrictSSL off)'}; extra CA bundle: ${target.network.caBundle ?? 'none'}`,
    `- User id: ${target.userId || '(not set)'}; volumes: ${target.volumes.join(', ') || '(none)'}; model: ${target.model || '(none)'}; agent: ${target.agentId}`,
    '- This check only reads: it lists with limit 1 and asks for one token; it uploads and deletes nothing.',
    '',
    '## Steps',
    '',
    '| # | Step | Result | Time |',
    '|---|---|---|---|',
    ...report.steps.map((step, i) => `| ${i + 1} | ${cell(step.title)} | ${MARK[step.status]} | ${step.ms === undefined ? '' : `${step.ms} ms`} |`),
    '',
  ];
  report.steps.forEach((step, i) => {
    lines.push(`### ${i + 1}. ${step.title}: ${step.status}`, '', step.detail);
    if (step.fix) lines.push('', `**Fix:** ${step.fix}`);
    lines.push('');
  });

  lines.push('## Response shapes seen', '');
  if (report.shapes.length === 0) {
    lines.push('None (no answer was decoded).', '');
  } else {
    lines.push('Field and event names as they arrived; values cut to a few characters.', '');
    const seen = new Set<string>();
    for (const shape of report.shapes) {
      const line = `- ${shape.source}${shape.event ? `, event \`${shape.event}\`` : ''}: \`${shape.shape.replace(/`/g, "'")}\`${shape.unknown ? ` — **not understood:** ${shape.unknown}` : ''}`;
      if (seen.has(line)) continue;
      seen.add(line);
      lines.push(line);
    }
    lines.push('');
  }

  lines.push('## Tolerant reading used', '');
  const paths = [...new Set(report.shapes.flatMap((s) => s.paths))];
  if (paths.length === 0) {
    lines.push("None: the answers had the shapes of the client's own decisions (docs/service-contract.md).");
  } else {
    lines.push("The service answers in forms beyond the client's own decisions; they were read this way:", '', ...paths.map((p) => `- ${p}`));
  }
  const unknown = report.shapes.filter((s) => s.unknown);
  if (unknown.length)
    lines.push(
      '',
      `**${unknown.length} shape(s) were not understood** (see above): parts of answers may be missing. Send this report to the administrators of the service and to the extension's maintainers.`,
    );
  lines.push('');
  return redactSecrets(lines.join('\n'), secrets);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
