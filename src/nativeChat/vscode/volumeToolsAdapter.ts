// Registers the volume tools with VS Code (`vscode.lm.registerTool`, stable since 1.95):
// settings and workspace are read at call time, the core does the rest. The upload asks
// for confirmation through prepareInvocation, naming exactly the files that will be sent.
import * as vscode from 'vscode';
import { abortSignalFor } from '../../common/vscode/cancellation';
import type { ExtensionServices } from '../../common/vscode/services';
import { settings } from '../../common/vscode/settings';
import { planUpload, runVolumeTool, type UploadEnvironment, type VolumeToolName } from '../core/toolRuns';
import { PERSONAL_VOLUME_LABEL } from '../../common/core/volumeTargets';
import { MAX_QUERY_CHARS, TOOL_NAMES, uploadConfirmation, volumeLabel, type ToolContext } from '../core/volumeTools';
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

export function uploadEnvironment(recent: RecentUploads): UploadEnvironment {
  return {
    workspaceRoots: (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath),
    maxFileBytes: settings.maxFileSizeBytes(),
    embedding: settings.embeddingModel(),
    doChunking: settings.doChunking(),
    onUploaded: (volume, ids) => recent.add(volume, ids),
  };
}

export function registerVolumeTools(services: ExtensionServices, recent: RecentUploads): vscode.Disposable[] {
  const invoke = async (name: VolumeToolName, input: unknown, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> => {
    const cancel = abortSignalFor(token);
    try {
      const result = await runVolumeTool(name, input, toolContext(services, cancel.signal), uploadEnvironment(recent));
      if (!result.ok) services.log.warn(`[vscode-chat] tool ${name}: ${result.text.split('\n')[0]}`);
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.text)]);
    } finally {
      cancel.dispose();
    }
  };

  const search: vscode.LanguageModelTool<{ query?: unknown }> = {
    prepareInvocation: (options) => {
      const query = typeof options.input?.query === 'string' ? options.input.query.slice(0, MAX_QUERY_CHARS) : '';
      return { invocationMessage: query ? `Searching your KSM volumes for "${query.slice(0, 80)}"` : 'Searching your KSM volumes' };
    },
    invoke: (options, token) => invoke(TOOL_NAMES.search, options.input, token),
  };

  const listFiles: vscode.LanguageModelTool<{ volume?: unknown }> = {
    prepareInvocation: (options) => ({
      invocationMessage: `Listing the files of ${typeof options.input?.volume === 'string' ? volumeLabel(options.input.volume) : PERSONAL_VOLUME_LABEL}`,
    }),
    invoke: (options, token) => invoke(TOOL_NAMES.listFiles, options.input, token),
  };

  const upload: vscode.LanguageModelTool<unknown> = {
    prepareInvocation: (options) => {
      const planned = planUpload(options.input, toolContext(services), uploadEnvironment(recent));
      // Invalid input is not confirmed: invoke() answers it with the reason, uploading nothing.
      if (!planned.ok) return { invocationMessage: 'Checking the files to upload' };
      const { title, message } = uploadConfirmation(planned.value);
      return {
        invocationMessage: `Uploading ${planned.value.files.length} file(s) to ${volumeLabel(planned.value.volume)}`,
        confirmationMessages: { title, message: new vscode.MarkdownString(message) },
      };
    },
    invoke: (options, token) => invoke(TOOL_NAMES.upload, options.input, token),
  };

  return [vscode.lm.registerTool(TOOL_NAMES.search, search), vscode.lm.registerTool(TOOL_NAMES.listFiles, listFiles), vscode.lm.registerTool(TOOL_NAMES.upload, upload)];
}
