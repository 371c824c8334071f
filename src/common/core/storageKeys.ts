// Every key the extension keeps in VS Code's storage, in one place, so two features can never
// pick the same key for different data and a renamed key is renamed everywhere. Values read
// back are `unknown` to their readers (an older version may have written another shape);
// each reader checks them, and writes back what a later version wrote that it does not read
// (src/common/core/storedState.ts; for example src/upload/core/uploadMemory.ts).

/** SecretStorage: the API key lives only here (never settings, state, logs or the webview). */
export const SECRET_KEY = {
  apiKey: 'ksm.apiKey',
  /** `{ baseUrl, apiKey }` before Connect to Local Emulator replaced them, for Restore Previous Connection. */
  previousConnection: 'ksm.previousConnection',
} as const;

/** `context.globalState`: remembered across workspaces. */
export const GLOBAL_STATE_KEY = {
  /** Most recently used upload targets first (uploadMemory.withRecentVolume). */
  recentUploadVolumes: 'ksm.upload.recentVolumes',
  /** The do_chunking last picked per volume (uploadMemory.withChunking). */
  chunkingByVolume: 'ksm.upload.doChunkingByVolume',
  /** The do_chunking each uploaded file was sent with, newest last (volumes/core/processingModes.ts). */
  processingModes: 'ksm.volumes.processingModes',
  /** Chat models picked in the model picker, most recent first (chat/core/modelChoices.ts). */
  recentChatModels: 'ksm.chat.recentModels',
  /** Replacements waiting for their new copy to be processed (upload/core/pendingReplacements.ts). */
  pendingReplacements: 'ksm.upload.pendingReplacements',
} as const;

/** `context.workspaceState`: per workspace. */
export const WORKSPACE_STATE_KEY = {
  /** The Volumes view's file order (FileSortOrder). */
  fileSortOrder: 'ksm.volumes.sort',
  /** Fingerprints of the workspace-settings sync pairings this user approved on this machine (syncSettings.ts). */
  syncApprovedPairings: 'ksm.sync.approvedPairings',
  /** Pairings kept on this machine only (never written to .vscode/settings.json). */
  syncLocalPairings: 'ksm.sync.localPairings',
  /** Where a new pairing is saved: 'workspace' (.vscode/settings.json) or 'local'; asked the first time. */
  syncPairingTarget: 'ksm.sync.pairingTarget',
  /** What this workspace uploaded, by content (upload/core/uploadedContents.ts). */
  uploadedContents: 'ksm.upload.uploadedContents',
} as const;
