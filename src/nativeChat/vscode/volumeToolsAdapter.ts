// The volume tools VS Code's agent calls (`vscode.lm.registerTool`, stable since 1.95):
// settings and workspace are read at call time, the core does the rest. The upload asks
// for confirmation through prepareInvocation, naming exactly the files that will be sent.
import * as vscode from 'vscode';
import { abortSignalFor } from '../../common/vscode/cancellation';
import type { ExtensionServices } from '../../common/vscode/services';
import { privateFileRules } from '../../common/vscode/excludeGlobs';
import { settings } from '../../common/vscode/settings';
import { planUpload, runVolumeTool, UploadConfirmations, type UploadEnvironment, type VolumeToolName } from '../core/toolRuns';
import { exactVolumeName, TOOL_NAMES, toolInvocationMessage, uploadConfirmation, type ToolContext } from '../core/volumeTools';
import type { RecentUploads } from '../core/participant';

export function toolContext(services: ExtensionServices, signal?: AbortSignal): ToolContext {
  return {
    service: services.getClient(),
    userId: settings.userId(),
    volumes: settings.volumes(),
    agentId: settings.agentId(),
    agentModel: settings.agentModel(),
    signal,
  };
}

export function uploadEnvironment(recent: RecentUploads, confirmations: UploadConfirmations): UploadEnvironment {
  return {
    ...privateFileRules(),
    trusted: vscode.workspace.isTrusted,
    confirmations,
    maxFileBytes: settings.maxFileSizeBytes(),
    embedding: settings.embeddingModel(),
    doChunking: settings.doChunking(),
    onUploaded: (volume, ids) => recent.add(volume, ids),
  };
}

/** The volume tools' implementations; nativeChatFeature.ts registers their names at activation and loads these at first use. */
export function createVolumeTools(services: ExtensionServices, recent: RecentUploads): Record<VolumeToolName, vscode.LanguageModelTool<unknown>> {
  const confirmations = new UploadConfirmations();
  const invoke = async (name: VolumeToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> => {
    const cancel = abortSignalFor(token);
    try {
      const result = await runVolumeTool(name, input, toolContext(services, cancel.signal), uploadEnvironment(recent, confirmations));
      if (!result.ok) services.log.warn(`[vscode-chat] tool ${name}: ${result.text.split('\n')[0]}`);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
    } finally {
      cancel.dispose();
    }
  };

  const search: vscode.LanguageModelTool<{ query?: unknown }> = {
    prepareInvocation: (options) => ({ invocationMessage: toolInvocationMessage('search', options.input, settings.userId()) }),
    invoke: (options, token) => invoke(TOOL_NAMES.search, options.input, token),
  };

  const listFiles: vscode.LanguageModelTool<{ volume?: unknown }> = {
    prepareInvocation: (options) => ({ invocationMessage: toolInvocationMessage('listFiles', options.input, settings.userId()) }),
    invoke: (options, token) => invoke(TOOL_NAMES.listFiles, options.input, token),
  };

  const upload: vscode.LanguageModelTool<unknown> = {
    // Fail closed: without a plan there is no confirmation, and invoke() uploads only a plan
    // whose confirmation was shown (UploadConfirmations), so an error here uploads nothing.
    prepareInvocation: async (options) => {
      try {
        const context = toolContext(services);
        const planned = await planUpload(options.input, context, uploadEnvironment(recent, confirmations));
        // Refused or invalid input is not confirmed: invoke() answers it with the reason, uploading nothing.
        if (!planned.ok) return { invocationMessage: vscode.workspace.isTrusted ? vscode.l10n.t('Checking the files to upload') : vscode.l10n.t('Uploading waits for workspace trust') };
        const { title, message } = uploadConfirmation(planned.value, context.userId);
        confirmations.record(options.input, planned.value);
        return {
          invocationMessage: vscode.l10n.t('Uploading {0} file(s) to {1}', planned.value.files.length, exactVolumeName(planned.value.volume, context.userId)),
          confirmationMessages: { title, message: new vscode.MarkdownString(message) },
        };
      } catch (error) {
        services.log.warn(`[vscode-chat] upload confirmation could not be prepared, nothing will be uploaded: ${error instanceof Error ? error.message : String(error)}`);
        return { invocationMessage: vscode.l10n.t('Checking the files to upload') };
      }
    },
    invoke: (options, token) => invoke(TOOL_NAMES.upload, options.input, token),
  };

  return { [TOOL_NAMES.search]: search, [TOOL_NAMES.listFiles]: listFiles, [TOOL_NAMES.upload]: upload } as Record<VolumeToolName, vscode.LanguageModelTool<unknown>>;
}
