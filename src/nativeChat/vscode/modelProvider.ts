// The `ksm` vendor in VS Code's model picker: a thin adapter over the core's catalog,
// response streaming and token counting. Settings, key and client are the panel's own.
import * as vscode from 'vscode';
import { abortSignalFor } from '../../common/vscode/cancellation';
import type { ExtensionServices } from '../../common/vscode/services';
import { settings } from '../../common/vscode/settings';
import { findModel, modelCatalog, ASSUMED_MAX_INPUT_TOKENS, ASSUMED_MAX_OUTPUT_TOKENS, type CatalogSettings } from '../core/modelCatalog';
import { AnswerFailedError, provideModelResponse } from '../core/modelResponse';
import { ThreadBook } from '../core/threadBook';
import { countMessageTokens, countTextTokens } from '../core/tokenCount';
import { toNeutralMessage, toNeutralTools, toVscodePart } from './partConversion';
import type { LanguageModelChatInformation, LanguageModelChatProvider, LanguageModelChatRequestMessage, LanguageModelResponsePart, ProvideLanguageModelChatResponseOptions } from './providerApi';
import { errorMessage } from '../../api/errors';

import { SETTINGS } from '../../common/core/settingsTable';

export function catalogSettings(): CatalogSettings {
  return {
    show: settings.showVscodeChatModels(),
    models: settings.models(),
    agentId: settings.agentId(),
    agentModel: settings.agentModel(),
  };
}

export class KsmModelProvider implements LanguageModelChatProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private readonly threads = new ThreadBook();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly services: ExtensionServices) {
    this.subscription = vscode.workspace.onDidChangeConfiguration((e) => {
      if (
        e.affectsConfiguration('ksm.chat.models') ||
        e.affectsConfiguration('ksm.agent') ||
        e.affectsConfiguration('ksm.chat.defaultModel') ||
        e.affectsConfiguration(SETTINGS.vscodeChatShowModels.key)
      ) {
        this.changed.fire();
      }
    });
  }

  provideLanguageModelChatInformation(): LanguageModelChatInformation[] {
    return modelCatalog(catalogSettings()).map((entry) => ({
      id: entry.id,
      name: entry.name,
      family: entry.family,
      detail: entry.detail,
      tooltip: entry.tooltip,
      version: '1',
      maxInputTokens: ASSUMED_MAX_INPUT_TOKENS,
      maxOutputTokens: ASSUMED_MAX_OUTPUT_TOKENS,
      capabilities: { toolCalling: entry.toolCalling, imageInput: false },
    }));
  }

  async provideLanguageModelChatResponse(
    model: LanguageModelChatInformation,
    messages: readonly LanguageModelChatRequestMessage[],
    options: ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const entry = findModel(catalogSettings(), model.id);
    if (!entry) throw new Error(vscode.l10n.t("The KSM model '{0}' is no longer configured (ksm.chat.models). Pick another model.", model.id));
    const cancel = abortSignalFor(token);
    try {
      const outcome = await provideModelResponse({
        service: this.services.getClient(),
        model: entry,
        messages: messages.map(toNeutralMessage),
        tools: toNeutralTools(options.tools),
        modelOptions: options.modelOptions,
        language: vscode.env.language,
        volumes: settings.volumes(),
        user: settings.userId() || undefined,
        threads: this.threads,
        signal: cancel.signal,
        report: (part) => progress.report(toVscodePart(part)),
      });
      if (outcome.stopped) this.services.log.info(`[vscode-chat] ${model.id}: stopped by the user.`);
    } catch (error) {
      this.services.log.error(`[vscode-chat] ${model.id}: ${errorMessage(error)}`);
      if (error instanceof AnswerFailedError && error.original instanceof Error) this.services.log.error(error.original);
      throw error;
    } finally {
      cancel.dispose();
    }
  }

  async provideTokenCount(_model: LanguageModelChatInformation, text: string | LanguageModelChatRequestMessage): Promise<number> {
    return typeof text === 'string' ? countTextTokens(text) : countMessageTokens(toNeutralMessage(text));
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
