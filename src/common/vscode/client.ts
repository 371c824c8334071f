// Builds a KsmClient from the current settings, the secret API key and VS Code's proxy
// settings. Called per use, so edited settings apply at once; the network dispatcher is
// kept while its settings stay the same, so connections are reused between calls.
import * as vscode from 'vscode';
import type { Dispatcher } from 'undici';
import { checkBaseUrl } from '../../api/baseUrl';
import { KsmClient } from '../../api/client';
import { NoApiKeyError } from '../../api/errors';
import { createDispatcher, type NetworkSettings } from '../../api/network';
import type { KsmService } from '../../api/service';
import { SessionShapeLog, type ShapeObserver } from '../../api/shapes';
import type { ApiKeyStore } from './apiKey';
import type { Log } from './log';
import { settings } from './settings';

let cachedDispatcher: { key: string; dispatcher: Dispatcher } | undefined;
const warnedInsecureUrls = new Set<string>();

// One per session: the first answer shape nothing could read is logged once (shapes.ts).
let sessionShapes: SessionShapeLog | undefined;

/** The network settings every request uses: VS Code's proxy settings and ksm.network.caBundle. */
export function networkSettings(): NetworkSettings {
  const http = vscode.workspace.getConfiguration('http');
  // `http.proxySupport: off` means no proxy at all, from settings or the environment.
  const proxiesOff = http.get<string>('proxySupport', 'override') === 'off';
  return {
    proxyUrl: proxiesOff ? undefined : http.get<string>('proxy', '').trim() || undefined,
    noProxy: http.get<string[]>('noProxy', []),
    strictSSL: http.get<boolean>('proxyStrictSSL', true),
    caBundlePath: settings.caBundle() || undefined,
    env: proxiesOff ? {} : process.env,
  };
}

export function userAgent(): string {
  return `ksm-assistant/${vscode.extensions.getExtension('ksm.ksm-assistant')?.packageJSON?.version ?? 'dev'} vscode/${vscode.version}`;
}

export function createClientFromSettings(apiKey: ApiKeyStore, log: Log, overrides: { shapes?: ShapeObserver; timeoutMs?: number } = {}): KsmService {
  const baseUrl = checkedBaseUrl(settings.baseUrl(), log);
  const network = networkSettings();
  sessionShapes ??= new SessionShapeLog(() => log.scoped('api'));
  return new KsmClient({
    baseUrl,
    apiKey: async () => {
      const key = await apiKey.get();
      if (!key) throw new NoApiKeyError();
      return key;
    },
    timeoutMs: overrides.timeoutMs ?? settings.timeoutMs(),
    userAgent: userAgent(),
    dispatcher: dispatcherFor(network),
    logger: log.scoped('api'),
    logRequests: settings.logRequests(),
    shapes: overrides.shapes ?? sessionShapes,
  });
}

function checkedBaseUrl(raw: string, log: Log): string {
  const { url, insecure } = checkBaseUrl(raw);
  if (insecure && !warnedInsecureUrls.has(url)) {
    warnedInsecureUrls.add(url);
    log.warn(`[api] 'ksm.baseUrl' ${url} uses plain http: the API key and your data travel unencrypted. Use https:// unless this is a trusted local network.`);
  }
  return url;
}

/** One dispatcher per distinct network setup; the previous one is closed when settings change. */
export function dispatcherFor(network: NetworkSettings): Dispatcher {
  const env = network.env ?? {};
  const key = JSON.stringify([
    network.proxyUrl,
    network.noProxy,
    network.strictSSL,
    network.caBundlePath,
    env.HTTPS_PROXY ?? env.https_proxy,
    env.HTTP_PROXY ?? env.http_proxy,
    env.NO_PROXY ?? env.no_proxy,
  ]);
  if (cachedDispatcher?.key === key) return cachedDispatcher.dispatcher;
  const dispatcher = createDispatcher(network);
  const previous = cachedDispatcher?.dispatcher;
  cachedDispatcher = { key, dispatcher };
  void previous?.close().catch(() => undefined);
  return dispatcher;
}
