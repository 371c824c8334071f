// KSM in VS Code's Chat, the part that loads at first use: the `ksm` models' provider, the
// volume tools, `@ksm`'s handler and the feature's commands. nativeChatFeature.ts registers
// their names at activation (feature-detected) and loads this module when VS Code first
// asks for one of them.
import type * as vscode from 'vscode';
import type { CommandRegistrar } from '../../common/vscode/lazyCommands';
import type { ExtensionServices } from '../../common/vscode/services';
import type { VolumeToolName } from '../core/toolRuns';
import { AnswerCitations, RecentUploads } from '../core/participant';
import type { NativeChatDeps } from '../nativeChatFeature';
import { registerNativeChatCommands } from './commands';
import { KsmModelProvider } from './modelProvider';
import { createParticipantHandler } from './participantAdapter';
import { createVolumeTools } from './volumeToolsAdapter';

export interface NativeChatRuntime {
  /** The model provider, built on first use (VS Code 1.104+ only asks for it where the API exists). */
  modelProvider(): KsmModelProvider;
  tools: Record<VolumeToolName, vscode.LanguageModelTool<unknown>>;
  participant: vscode.ChatRequestHandler;
  registerCommands: CommandRegistrar;
  dispose(): void;
}

export function createNativeChatRuntime(services: ExtensionServices, deps: NativeChatDeps): NativeChatRuntime {
  const recent = new RecentUploads();
  const citations = new AnswerCitations();
  let provider: KsmModelProvider | undefined;
  return {
    modelProvider: () => (provider ??= new KsmModelProvider(services)),
    tools: createVolumeTools(services, recent),
    participant: createParticipantHandler(services, recent, citations),
    registerCommands: (recorder) =>
      registerNativeChatCommands(recorder, deps.revealFile, (answerId, marker) => {
        const source = citations.source(answerId, marker);
        if (!source) return Promise.resolve(false);
        // The passage opens in the editor; VS Code's Chat is not in the side bar Volumes shares, so the row is selected too.
        return deps.openCitedPassage(answerId as string, source).then(async () => {
          if (source.volume) await deps.revealFile(source.volume, source.fileId);
          return true;
        });
      }),
    dispose: () => provider?.dispose(),
  };
}
