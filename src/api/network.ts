// The undici dispatcher for the user's network: proxy (explicit, else from the
// environment), TLS strictness, and an extra CA bundle for corporate TLS inspection.
import * as l10n from '@vscode/l10n';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, ProxyAgent, type Dispatcher } from 'undici';
import { ConfigurationError } from './errors';

export interface NetworkSettings {
  /** VS Code's `http.proxy`; wins over the environment. */
  proxyUrl?: string;
  /** VS Code's `http.noProxy`: hosts reached directly, added to NO_PROXY. */
  noProxy?: string[];
  /** VS Code's `http.proxyStrictSSL`; false accepts any certificate. */
  strictSSL?: boolean;
  /** `ksm.network.caBundle`: a PEM file appended to Node's default CAs. */
  caBundlePath?: string;
  /** Where HTTPS_PROXY/HTTP_PROXY/NO_PROXY are read (default: process.env). */
  env?: Record<string, string | undefined>;
}

interface TlsOptions {
  ca?: string[];
  rejectUnauthorized: boolean;
}

function readCaBundle(path: string): string[] {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ConfigurationError(
      code
        ? l10n.t("The CA bundle '{0}' (setting ksm.network.caBundle) could not be read ({1}). Fix the path or clear the setting.", path, code)
        : l10n.t("The CA bundle '{0}' (setting ksm.network.caBundle) could not be read. Fix the path or clear the setting.", path),
      { cause: error },
    );
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigurationError(l10n.t("The CA bundle '{0}' (setting ksm.network.caBundle) holds no PEM certificate ('-----BEGIN CERTIFICATE-----').", path));
  }
  return [...rootCertificates, pem];
}

function envValue(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name.toLowerCase()] ?? env[name.toUpperCase()];
  return value?.trim() || undefined;
}

function checkProxyUrl(url: string, source: string): string {
  try {
    const parsed = new URL(url);
    if (!/^(https?|socks5?):$/.test(parsed.protocol)) throw new Error(parsed.protocol);
    return url;
  } catch {
    throw new ConfigurationError(l10n.t("The proxy '{0}' ({1}) is not a valid http(s) proxy URL.", url, source));
  }
}

/**
 * Builds the dispatcher every request of a client goes through. An explicit proxy becomes
 * a ProxyAgent (honouring the bypass list when there is one); otherwise
 * HTTPS_PROXY/HTTP_PROXY/NO_PROXY from the environment are honoured through
 * EnvHttpProxyAgent; with neither, a plain Agent.
 */
export function createDispatcher(settings: NetworkSettings = {}): Dispatcher {
  const env = settings.env ?? process.env;
  const tls: TlsOptions = { rejectUnauthorized: settings.strictSSL !== false };
  if (settings.caBundlePath?.trim()) tls.ca = readCaBundle(settings.caBundlePath.trim());
  // The same TLS options apply to the origin (through a tunnel) and to an https proxy.
  const tlsEverywhere = { connect: tls, requestTls: tls, proxyTls: tls };

  const noProxy = [envValue(env, 'no_proxy'), ...(settings.noProxy ?? [])]
    .map((entry) => entry?.trim())
    .filter(Boolean)
    .join(',');
  const explicit = settings.proxyUrl?.trim();
  if (explicit) {
    const uri = checkProxyUrl(explicit, l10n.t('setting {0}', 'http.proxy'));
    if (!noProxy) return new ProxyAgent({ uri, ...tlsEverywhere });
    // Same proxy, but hosts on the bypass list (say, a local emulator) are reached directly.
    return new EnvHttpProxyAgent({ httpProxy: uri, httpsProxy: uri, noProxy, ...tlsEverywhere });
  }

  const httpProxy = envValue(env, 'http_proxy');
  const httpsProxy = envValue(env, 'https_proxy');
  if (httpProxy || httpsProxy) {
    if (httpProxy) checkProxyUrl(httpProxy, 'HTTP_PROXY');
    if (httpsProxy) checkProxyUrl(httpsProxy, 'HTTPS_PROXY');
    // Passed explicitly (not read by undici from process.env) so the caller's env wins.
    return new EnvHttpProxyAgent({ httpProxy: httpProxy ?? '', httpsProxy: httpsProxy ?? '', noProxy, ...tlsEverywhere });
  }
  return new Agent({ connect: tls });
}
