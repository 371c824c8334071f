// One plain request to the service's address, without the API key, through the same
// network stack (proxy, TLS, CA bundle) as every call. Any HTTP answer proves the address,
// the network path and TLS work; what failed otherwise is the error's `code` (ECONNREFUSED,
// ENOTFOUND, DEPTH_ZERO_SELF_SIGNED_CERT…), which Check Connection turns into a fix.
import * as l10n from '@vscode/l10n';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { errorFromFailure } from './httpErrors';
import type { Redactor } from './redact';

export interface ProbeResult {
  status: number;
  contentType?: string;
  server?: string;
}

export async function probeAddress(
  url: string,
  options: {
    dispatcher?: Dispatcher;
    timeoutMs: number;
    signal?: AbortSignal;
    userAgent?: string;
    /** The one redaction step for what the server sends (headers, failure text), as for every call. */
    redact: Redactor;
  },
): Promise<ProbeResult> {
  try {
    const response = await undiciRequest(url, {
      method: 'GET',
      headers: { accept: '*/*', 'user-agent': options.userAgent ?? 'ksm-assistant' },
      dispatcher: options.dispatcher,
      signal: options.signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    await response.body.dump().catch(() => undefined);
    const header = (name: string) => {
      const value = response.headers[name];
      const first = Array.isArray(value) ? value[0] : value;
      return first === undefined ? undefined : options.redact(first);
    };
    return { status: response.statusCode, contentType: header('content-type'), server: header('server') };
  } catch (error) {
    throw errorFromFailure(error, l10n.t('Reaching {0}', url), options.signal, options.redact);
  }
}
