// Checks the service address before any call: a clear ConfigurationError for a missing or
// malformed one, and a flag for plain http off this machine (the key would travel in clear).
import * as l10n from '@vscode/l10n';
import { ConfigurationError } from './errors';

export interface CheckedBaseUrl {
  url: string;
  /** Plain http to a host that is not loopback. */
  insecure: boolean;
}

/**
 * An address without its trailing slashes. `(?<!\/)` lets a match start only at a run's first
 * slash: `/\/+$/` re-read a run from each of its slashes (quadratic in the run's length).
 */
export function withoutTrailingSlashes(address: string): string {
  return address.replace(/(?<!\/)\/+$/, '');
}

export function checkBaseUrl(raw: string): CheckedBaseUrl {
  const trimmed = withoutTrailingSlashes(raw.trim());
  if (!trimmed) {
    throw new ConfigurationError(l10n.t("No service address is set. Set 'ksm.baseUrl' in Settings, or run 'KSM: Connect to Local Emulator'."));
  }
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new ConfigurationError(l10n.t("'ksm.baseUrl' is not a valid URL: '{0}'. Use for example https://ksm.example.com.", trimmed));
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ConfigurationError(l10n.t("'ksm.baseUrl' must start with https:// (or http:// for a local emulator), not '{0}'.", parsed.protocol));
  }
  if (parsed.username || parsed.password) {
    throw new ConfigurationError(l10n.t("'ksm.baseUrl' must not contain a user name or password; the API key is set with 'KSM: Set API Key'."));
  }
  return { url: trimmed, insecure: parsed.protocol === 'http:' && !isLoopbackHost(parsed.hostname) };
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
