// The language-model provider API (stable since VS Code 1.104, `capabilities` since 1.105),
// declared here because the extension compiles against @types/vscode 1.100: `vsce package`
// refuses @types/vscode newer than `engines.vscode`, and engines stays ^1.100.0 so the VSIX
// installs on 1.100 and VSCodium. Copied in shape from @types/vscode 1.105 (only what we
// use); every use is behind `providerApiOf()`, which finds the function at run time.
// Delete this file when engines.vscode reaches ^1.105.0.
import * as vscode from 'vscode';

export interface LanguageModelChatInformation {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly tooltip?: string;
  readonly detail?: string;
  readonly version: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly imageInput?: boolean; readonly toolCalling?: boolean | number };
}

export interface LanguageModelChatRequestMessage {
  readonly role: vscode.LanguageModelChatMessageRole;
  readonly content: ReadonlyArray<unknown>;
  readonly name: string | undefined;
}

export interface ProvideLanguageModelChatResponseOptions {
  readonly modelOptions?: { readonly [name: string]: unknown };
  readonly tools?: readonly vscode.LanguageModelChatTool[];
  readonly toolMode: vscode.LanguageModelChatToolMode;
}

export type LanguageModelResponsePart = vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart | vscode.LanguageModelToolCallPart;

export interface LanguageModelChatProvider<T extends LanguageModelChatInformation = LanguageModelChatInformation> {
  readonly onDidChangeLanguageModelChatInformation?: vscode.Event<void>;
  provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: vscode.CancellationToken): vscode.ProviderResult<T[]>;
  provideLanguageModelChatResponse(
    model: T,
    messages: readonly LanguageModelChatRequestMessage[],
    options: ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Thenable<void>;
  provideTokenCount(model: T, text: string | LanguageModelChatRequestMessage, token: vscode.CancellationToken): Thenable<number>;
}

type RegisterProvider = (vendor: string, provider: LanguageModelChatProvider) => vscode.Disposable;

/** `vscode.lm.registerLanguageModelChatProvider` where the running VS Code has it (1.104+), else undefined. */
export function providerApiOf(api: typeof vscode): RegisterProvider | undefined {
  const register = (api.lm as unknown as { registerLanguageModelChatProvider?: RegisterProvider } | undefined)?.registerLanguageModelChatProvider;
  return typeof register === 'function' ? register.bind(api.lm) : undefined;
}
