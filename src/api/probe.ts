// One plain request to the service's address, without the API key, through the same
// network stack (proxy, TLS, CA bundle) as every call. Any HTTP answer proves the address,
// the network path and TLS work; what failed otherwise is the error's `code` (ECONNREFUSED,
// ENOTFOUND, DEPTH_ZERO_SELF_SIGNED_CERT…), which Check Connection turns into a fix.
import { request as undiciRequest, type Dispatcher } from 'undici';
import { errorFromFailure } from './httpErrors';

export interface ProbeResult {
  status: number;
  contentType?: string;
  server?: string;
}

export async function probeAddress(
  url: string,
  options: { dispatcher?: Dispatcher; timeoutMs: number; signal?: AbortSignal; userAgent?: string },
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
      return Array.isArray(value) ? value[0] : value;
    };
    return { status: response.statusCode, contentType: header('content-type'), server: header('server') };
  } catch (error) {
    throw errorFromFailure(error, `Reaching ${url}`, options.signal, []);
  }
}
