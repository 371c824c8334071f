// The Check Connection report as Markdown, for the user and for the service's
// administrators (Copy Report): the verdict and first failure on top, then each step with
// its result, latency and fix, the response shapes seen and the tolerant reading paths
// used. The whole text passes redactSecrets with the key last, whatever a server echoed.
import * as l10n from '@vscode/l10n';
import { redactSecrets } from '../../api/errors';
import { COMMAND, type CommandId } from '../../common/core/contributionIds';
import { asSentence, type ConnectionReport, type StepResult } from './checkRun';
import type { Problem } from '../../common/core/errorFixes';
import { shownInMessage } from '../../common/core/untrustedText';

// Plain words, not emoji: the report is pasted into mail and tickets, and fonts vary.
const statusWord = (status: StepResult['status']): string => ({ passed: l10n.t('passed'), failed: l10n.t('failed'), warning: l10n.t('warning'), skipped: l10n.t('skipped') })[status];
const mark = (status: StepResult['status']): string => (status === 'failed' ? `**${l10n.t('FAILED')}**` : statusWord(status));

export function firstFailure(report: ConnectionReport): StepResult | undefined {
  return report.steps.find((step) => step.status === 'failed');
}

export function verdict(report: ConnectionReport): string {
  const failure = firstFailure(report);
  const ran = report.steps.filter((s) => s.status !== 'skipped');
  const passed = ran.filter((s) => s.status === 'passed').length;
  // A step's detail quotes what the address answered (an error body, a proxy's page): the
  // verdict is a notification's text, where `[..](command:..)` would be a link that runs a command.
  if (failure) return l10n.t('First failing step: {0} {1}', asSentence(failure.title), shownInMessage(asSentence(failure.detail)));
  const warnings = report.steps.filter((s) => s.status === 'warning');
  if (warnings.length) return l10n.t('All {0} steps ran; {1} with a warning ({2}).', ran.length, warnings.length, warnings.map((w) => w.title).join(', '));
  return l10n.t('All {0} steps passed.', passed);
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
  if (problem === 'key' || problem === 'no-key') actions.push({ title: l10n.t('Set API Key'), command: COMMAND.setApiKey });
  const setting = problem && SETTING_OF[problem];
  if (setting) actions.push({ title: l10n.t('Open Settings'), command: COMMAND.openSettings, argument: setting });
  return actions;
}

export function renderReport(report: ConnectionReport, secrets: ReadonlyArray<string | undefined>): string {
  const { target } = report;
  const failure = firstFailure(report);
  const lines: string[] = [
    l10n.t('# KSM Connection Check'),
    '',
    failure ? l10n.t('**Failed.** {0}', verdict(report)) : l10n.t('**Connected.** {0}', verdict(report)),
    ...(failure?.fix ? ['', l10n.t('**Fix:** {0}', failure.fix)] : []),
    '',
    target.client ? l10n.t('- Checked: {0} with {1}', report.startedAt.toISOString(), target.client) : l10n.t('- Checked: {0}', report.startedAt.toISOString()),
    l10n.t('- Service address (ksm.baseUrl): {0}', target.baseUrl || l10n.t('(not set)')),
    target.network.noProxy?.length
      ? l10n.t('- Proxy: {0}; bypassed for {1}', target.network.proxy ?? l10n.t('none'), target.network.noProxy.join(', '))
      : l10n.t('- Proxy: {0}', target.network.proxy ?? l10n.t('none')),
    l10n.t(
      '- TLS: {0}; extra CA bundle: {1}',
      target.network.strictSSL ? l10n.t('certificates verified') : l10n.t('certificates NOT verified (http.proxyStrictSSL off)'),
      target.network.caBundle ?? l10n.t('none'),
    ),
    l10n.t(
      '- User id: {0}; volumes: {1}; model: {2}; agent: {3}',
      target.userId || l10n.t('(not set)'),
      target.volumes.join(', ') || l10n.t('(none)'),
      target.model || l10n.t('(none)'),
      target.agentId,
    ),
    l10n.t('- This check only reads: it lists with limit 1 and asks for one token; it uploads and deletes nothing.'),
    '',
    l10n.t('## Steps'),
    '',
    l10n.t('| # | Step | Result | Time |'),
    '|---|---|---|---|',
    ...report.steps.map((step, i) => `| ${i + 1} | ${cell(step.title)} | ${mark(step.status)} | ${step.ms === undefined ? '' : `${step.ms} ms`} |`),
    '',
  ];
  report.steps.forEach((step, i) => {
    lines.push(`### ${i + 1}. ${step.title}: ${statusWord(step.status)}`, '', step.detail);
    if (step.fix) lines.push('', l10n.t('**Fix:** {0}', step.fix));
    lines.push('');
  });

  lines.push(l10n.t('## Response shapes seen'), '');
  if (report.shapes.length === 0) {
    lines.push(l10n.t('None (no answer was decoded).'), '');
  } else {
    lines.push(l10n.t('Field and event names as they arrived; values cut to a few characters.'), '');
    const seen = new Set<string>();
    for (const shape of report.shapes) {
      const line = [
        `- ${shape.source}`,
        shape.event ? l10n.t(', event `{0}`', shape.event) : '',
        `: \`${shape.shape.replace(/`/g, "'")}\``,
        shape.unknown ? l10n.t(' — **not understood:** {0}', shape.unknown) : '',
      ].join('');
      if (seen.has(line)) continue;
      seen.add(line);
      lines.push(line);
    }
    lines.push('');
  }

  lines.push(l10n.t('## Tolerant reading used'), '');
  const paths = [...new Set(report.shapes.flatMap((s) => s.paths))];
  if (paths.length === 0) {
    lines.push(l10n.t("None: the answers had the shapes of the client's own decisions (docs/service-contract.md)."));
  } else {
    lines.push(l10n.t("The service answers in forms beyond the client's own decisions; they were read this way:"), '', ...paths.map((p) => `- ${p}`));
  }
  const unknown = report.shapes.filter((s) => s.unknown);
  if (unknown.length)
    lines.push(
      '',
      l10n.t(
        "**{0} shape(s) were not understood** (see above): parts of answers may be missing. Send this report to the administrators of the service and to the extension's maintainers.",
        unknown.length,
      ),
    );
  lines.push('');
  return redactSecrets(lines.join('\n'), secrets);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}
