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
