// Runs the check with the current settings: asks whether the agent may be asked (it starts
// a thread), shows progress step by step, and opens the report as a Markdown document.
import * as vscode from 'vscode';
import { createClientFromSettings, dispatcherFor, networkSettings, userAgent } from '../../common/vscode/client';
import type { ExtensionServices } from '../../common/vscode/services';
import type { ReadOnlyDocument } from '../../common/vscode/readOnlyDocument';
import { settings } from '../../common/vscode/settings';
import { probeAddress } from '../../api/probe';
import { redactorFor } from '../../api/redact';
import type { NetworkSummary } from '../core/checkRun';
import { runConnectionCheck } from '../core/connectionCheck';
import { firstFailure, fixActions, renderReport, verdict, type FixAction } from '../core/report';

/** A check takes seconds: no step waits longer than this for an answer's headers. */
const STEP_TIMEOUT_MS = 15_000;

export async function checkConnection(services: ExtensionServices, reportDocument: ReadOnlyDocument): Promise<{ markdown: string; verdict: string; failed: boolean; fixes: FixAction[] } | undefined> {
  const pick = await vscode.window.showQuickPick(
    [
      {
        askAgent: false,
        label: vscode.l10n.t('Check without the agent (read-only)'),
        detail: vscode.l10n.t('Address, network, API key, personal volume (limit 1), one streamed token of the default model.'),
      },
      {
        askAgent: true,
        label: vscode.l10n.t('Also ask the agent a tiny question'),
        detail: vscode.l10n.t("Everything above, plus one short question to '{0}': it starts a thread on the service.", settings.agentId()),
      },
    ],
    { title: vscode.l10n.t('KSM: Check Connection'), placeHolder: vscode.l10n.t('The check only reads; the agent question is the one exception, and only if you choose it.') },
  );
  if (!pick) return undefined;

  const network = networkSettings();
  const key = await services.apiKey.get();
  const timeoutMs = Math.min(settings.timeoutMs(), STEP_TIMEOUT_MS);
  const report = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('KSM: Checking the connection'), cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      return runConnectionCheck({
        target: {
          baseUrl: settings.baseUrl(),
          userId: settings.userId(),
          volumes: settings.volumes(),
          model: settings.defaultModel(),
          agentId: settings.agentId(),
          agentModel: settings.agentModel(),
          outputFormat: settings.outputFormat(),
          network: summarize(network),
          askAgent: pick.askAgent,
          client: userAgent(),
        },
        hasApiKey: Boolean(key),
        client: (shapes) => createClientFromSettings(services.apiKey, services.log, { shapes, timeoutMs }),
        probe: (url) =>
          probeAddress(url, { dispatcher: dispatcherFor(network), timeoutMs, signal: abort.signal, userAgent: userAgent(), redact: redactorFor([key, ...services.apiKey.knownSecrets()]) }),
        signal: abort.signal,
        onStep: (step) => progress.report({ message: `${step.title}: ${step.status}` }),
      });
    },
  );
  const markdown = renderReport(report, [key, ...services.apiKey.knownSecrets()]);
  services.log.info(`[connection] ${verdict(report)}`);
  await reportDocument.show(markdown);
  return { markdown, verdict: verdict(report), failed: firstFailure(report) !== undefined, fixes: fixActions(report) };
}

/** The proxy as shown in the report: where it came from, and never its user name or password. */
function summarize(network: ReturnType<typeof networkSettings>): NetworkSummary {
  const env = network.env ?? {};
  const fromEnv = env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy;
  const proxy = network.proxyUrl ? `${withoutCredentials(network.proxyUrl)} (http.proxy)` : fromEnv ? `${withoutCredentials(fromEnv)} (environment)` : undefined;
  const noProxy = [...(network.noProxy ?? []), ...((env.NO_PROXY ?? env.no_proxy)?.split(',') ?? [])].map((h) => h.trim()).filter(Boolean);
  return { proxy, noProxy: proxy ? noProxy : undefined, strictSSL: network.strictSSL !== false, caBundle: network.caBundlePath };
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return vscode.l10n.t('(not a valid URL)');
  }
}
