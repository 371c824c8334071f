// The ids package.json declares and the code uses: commands, views and context keys, one
// name each. test/extension/contributionIds.test.ts proves package.json declares the same
// command ids the extension registers and that every menu entry names one of them; `services.registerCommand` takes only these, so a typo is a
// compile error rather than a command that silently does nothing. vscode-free, so a core
// may name the command that fixes a problem (src/common/core/errorFixes.ts).
export const COMMAND = {
  setApiKey: 'ksm.setApiKey',
  clearApiKey: 'ksm.clearApiKey',
  useLocalEmulator: 'ksm.useLocalEmulator',
  restorePreviousConnection: 'ksm.restorePreviousConnection',
  showLog: 'ksm.showLog',
  openSettings: 'ksm.openSettings',
  getStarted: 'ksm.getStarted',
  checkConnection: 'ksm.checkConnection',
  copyConnectionReport: 'ksm.copyConnectionReport',
  volumesAdd: 'ksm.volumes.add',
  volumesRemove: 'ksm.volumes.remove',
  volumesRefresh: 'ksm.volumes.refresh',
  volumesRefreshVolume: 'ksm.volumes.refreshVolume',
  volumesLoadMore: 'ksm.volumes.loadMore',
  volumesFilter: 'ksm.volumes.filter',
  volumesClearFilter: 'ksm.volumes.clearFilter',
  volumesSort: 'ksm.volumes.sort',
  volumesOpenSettings: 'ksm.volumes.openSettings',
  upload: 'ksm.upload',
  uploadToVolume: 'ksm.upload.toVolume',
  filesDelete: 'ksm.files.delete',
  filesCopyId: 'ksm.files.copyId',
  filesAskAgent: 'ksm.files.askAgent',
  chatNew: 'ksm.chat.new',
  chatOpen: 'ksm.chat.open',
  chatAskAboutSelection: 'ksm.chat.askAboutSelection',
  chatAskAboutFile: 'ksm.chat.askAboutFile',
  chatConversations: 'ksm.chat.conversations',
  chatExport: 'ksm.chat.export',
  chatReadLastAnswer: 'ksm.chat.readLastAnswer',
  chatChooseVolumes: 'ksm.chat.chooseVolumes',
  chatChooseFiles: 'ksm.chat.chooseFiles',
  syncFolder: 'ksm.sync.folder',
  syncNow: 'ksm.sync.now',
  syncShowPreview: 'ksm.sync.showPreview',
  syncStop: 'ksm.sync.stop',
  syncReviewPairings: 'ksm.sync.reviewPairings',
  vscodeChatManageModels: 'ksm.vscodeChat.manageModels',
  vscodeChatRevealCitation: 'ksm.vscodeChat.revealCitation',
  vscodeChatOpenCitation: 'ksm.vscodeChat.openCitation',
  mcpUseInOtherAgents: 'ksm.mcp.useInOtherAgents',
  mcpInstallCommand: 'ksm.mcp.installCommand',
} as const;

export type CommandId = (typeof COMMAND)[keyof typeof COMMAND];

/** Context keys the extension sets (`setContext`) for `when` clauses in package.json. */
export const CONTEXT_KEY = {
  hasApiKey: 'ksm.hasApiKey',
  hasConnectionReport: 'ksm.hasConnectionReport',
  volumesFiltered: 'ksm.volumes.filtered',
  /** A service address and a key are set (the walkthrough's "connect" step is done). */
  connected: 'ksm.connected',
  /** An answer finished in the chat (the walkthrough's "ask" step is done). */
  chatAnswered: 'ksm.chat.answered',
  /** The chat's open conversation is an agent one (its volumes and files can be chosen). */
  chatAgentMode: 'ksm.chat.agentMode',
} as const;

export type ContextKey = (typeof CONTEXT_KEY)[keyof typeof CONTEXT_KEY];

/**
 * The activity-bar containers: Volumes in one, the chat in its own so it gets the full
 * height and can be dragged to the secondary side bar (issue 14, defect 2).
 */
export const VIEW_CONTAINER_ID = {
  volumes: 'ksm',
  chat: 'ksm-chat',
} as const;

/** The walkthrough (`contributes.walkthroughs`), opened by KSM: Get Started. */
export const WALKTHROUGH_ID = 'gettingStarted';

/**
 * Commands whose code loads at their first use rather than at activation
 * (src/common/vscode/lazyCommands.ts), by the module that registers them;
 * test/common/lazyCommands.test.ts keeps each list equal to what its module registers.
 */
export const LAZY_COMMANDS = {
  /** src/chat/vscode/commands.ts, through the chat's runtime (chat/vscode/chatRuntime.ts). */
  /** src/nativeChat/vscode/commands.ts, through nativeChat/vscode/nativeChatRuntime.ts. */
  nativeChat: [COMMAND.vscodeChatManageModels, COMMAND.vscodeChatRevealCitation, COMMAND.vscodeChatOpenCitation, COMMAND.mcpInstallCommand, COMMAND.mcpUseInOtherAgents],
  /** src/sync/vscode/commands.ts, through sync/vscode/syncRuntime.ts. */
  sync: [COMMAND.syncFolder, COMMAND.syncReviewPairings, COMMAND.syncNow, COMMAND.syncShowPreview, COMMAND.syncStop],
  /** src/upload/vscode/commands.ts (uploadFeature.ts). */
  upload: [COMMAND.upload, COMMAND.uploadToVolume],
  /** src/volumes/vscode/commands.ts (volumesFeature.ts). */
  volumes: [
    COMMAND.volumesAdd,
    COMMAND.volumesRemove,
    COMMAND.volumesRefresh,
    COMMAND.volumesRefreshVolume,
    COMMAND.volumesOpenSettings,
    COMMAND.volumesLoadMore,
    COMMAND.volumesFilter,
    COMMAND.volumesClearFilter,
    COMMAND.volumesSort,
    COMMAND.filesCopyId,
    COMMAND.filesAskAgent,
    COMMAND.filesDelete,
  ],
  /** src/connection/vscode/accountCommands.ts and commands.ts (connectionFeature.ts). */
  connection: [
    COMMAND.setApiKey,
    COMMAND.getStarted,
    COMMAND.clearApiKey,
    COMMAND.showLog,
    COMMAND.openSettings,
    COMMAND.useLocalEmulator,
    COMMAND.restorePreviousConnection,
    COMMAND.checkConnection,
    COMMAND.copyConnectionReport,
  ],
  chat: [
    COMMAND.chatNew,
    COMMAND.chatOpen,
    COMMAND.chatAskAboutSelection,
    COMMAND.chatAskAboutFile,
    COMMAND.chatConversations,
    COMMAND.chatChooseVolumes,
    COMMAND.chatChooseFiles,
    COMMAND.chatExport,
    COMMAND.chatReadLastAnswer,
  ],
} as const satisfies Record<string, readonly CommandId[]>;

/** The `@ksm` participant (package.json `chatParticipants`). */
export const PARTICIPANT_ID = 'ksm.assistant';

/** The tools VS Code's agent may call (package.json `languageModelTools`). */
export const LM_TOOL_ID = {
  search: 'ksm_search_volumes',
  listFiles: 'ksm_list_files',
  upload: 'ksm_upload_files',
} as const;

/** The views of the KSM containers in package.json. */
export const VIEW_ID = {
  volumes: 'ksm.volumes',
  chat: 'ksm.chat',
} as const;
