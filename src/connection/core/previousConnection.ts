// What Connect to Local Emulator keeps (in SecretStorage only: it holds a key) so Restore
// Previous Connection can put the user's own address and key back. No `vscode` import.

export interface PreviousConnection {
  /** The `ksm.baseUrl` before, '' when none was set. */
  baseUrl: string;
  /** The API key before, '' when none was stored. */
  apiKey: string;
}

/** The stored record, or undefined when there is none or it is not one (written by another version, damaged). */
export function parsePreviousConnection(raw: string | undefined): PreviousConnection | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    if (typeof value !== 'object' || value === null || typeof value.baseUrl !== 'string' || typeof value.apiKey !== 'string') return undefined;
    if (!value.baseUrl && !value.apiKey) return undefined;
    return { baseUrl: value.baseUrl, apiKey: value.apiKey };
  } catch {
    return undefined;
  }
}

/** Where the address, the key and the kept previous connection live (VS Code: settings and SecretStorage). */
export interface ConnectionStore {
  baseUrl(): string;
  setBaseUrl(url: string | undefined): Promise<void>;
  apiKey(): Promise<string | undefined>;
  setApiKey(key: string | undefined): Promise<void>;
  previous(): Promise<string | undefined>;
  setPrevious(raw: string | undefined): Promise<void>;
}

/**
 * Points the store at the emulator, after `confirm` (told what will be kept) says yes. The
 * previous address and key are kept first (not when they already are the emulator's, so a
 * second run keeps the user's own), then the key is replaced, then the address: at no
 * moment do the stored key and the emulator's address go together. Nothing is written when
 * the user declines.
 */
export async function switchToEmulator(
  store: ConnectionStore,
  emulator: { baseUrl: string; apiKey: string },
  confirm: (previous: PreviousConnection | undefined) => Promise<boolean>,
): Promise<'switched' | 'already' | 'declined'> {
  const previous: PreviousConnection = { baseUrl: store.baseUrl(), apiKey: (await store.apiKey()) ?? '' };
  if (previous.baseUrl === emulator.baseUrl && previous.apiKey === emulator.apiKey) return 'already';
  const kept = previous.baseUrl || previous.apiKey ? previous : undefined;
  if (!(await confirm(kept))) return 'declined';
  if (kept) await store.setPrevious(JSON.stringify(kept));
  await store.setApiKey(emulator.apiKey);
  await store.setBaseUrl(emulator.baseUrl);
  return 'switched';
}

/** Puts the kept connection back: the address first (the key never goes to the emulator), then the key; forgets it. */
export async function restorePreviousConnection(store: ConnectionStore): Promise<PreviousConnection | undefined> {
  const previous = parsePreviousConnection(await store.previous());
  if (!previous) return undefined;
  await store.setBaseUrl(previous.baseUrl || undefined);
  await store.setApiKey(previous.apiKey || undefined);
  await store.setPrevious(undefined);
  return previous;
}
