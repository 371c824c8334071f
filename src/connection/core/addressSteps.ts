// Check Connection's first two steps: is the address usable, and does anything answer there
// (DNS, connection, proxy and TLS), before the key is ever sent.
import { checkBaseUrl } from '../../api/baseUrl';
import { errorFirstLine } from '../../api/errors';
import type { CheckStep, NetworkSummary } from './checkRun';
import { fixFor } from '../../common/core/errorFixes';

export const addressStep: CheckStep = {
  id: 'address',
  title: 'Service address',
  async run(check) {
    try {
      check.url = checkBaseUrl(check.target.baseUrl).url;
    } catch (error) {
      const fix = fixFor('address', check.fixContext).replace('the host name does not resolve', 'it is missing or not a valid http(s) URL');
      check.add({ id: 'address', title: this.title, status: 'failed', detail: errorFirstLine(error), problem: 'address', fix });
      return 'the service address is not usable';
    }
    const parsed = new URL(check.url);
    check.fixContext.host = parsed.host;
    const secure = parsed.protocol === 'https:';
    const local = isLocal(parsed.hostname);
    check.add({
      id: 'address',
      title: this.title,
      status: secure || local ? 'passed' : 'warning',
      detail: `${check.url} (${secure ? 'https' : local ? 'plain http on this machine' : 'plain http: the key travels unencrypted'}).`,
      ...(secure || local ? {} : { fix: 'Use an https:// address unless this is a trusted local network.' }),
    });
    return undefined;
  },
};

/** Any HTTP answer proves DNS, connection, proxy and TLS. */
export const reachStep: CheckStep = {
  id: 'reach',
  title: 'Reach the service (network, proxy, TLS)',
  async run(check) {
    const reach = await check.timed(() => check.deps.probe(`${check.url}/`));
    if (reach.error) {
      check.failed('reach', this.title, reach.error, 'reach', reach.ms);
      return 'the service could not be reached';
    }
    const probe = reach.value!;
    const type = probe.contentType ? ` (${probe.contentType.split(';')[0]})` : '';
    check.add({ id: 'reach', title: this.title, status: 'passed', ms: reach.ms, detail: `GET ${check.url}/ answered HTTP ${probe.status}${type} ${networkPath(check.target.network, check.url)}.` });
    return undefined;
  },
};

function networkPath(network: NetworkSummary, url: string): string {
  const bypass = network.noProxy?.length ? ` (hosts on http.noProxy go direct: ${network.noProxy.join(', ')})` : '';
  const parts = [network.proxy ? `through the proxy ${network.proxy}${bypass}` : 'directly (no proxy)'];
  if (url.startsWith('https:')) {
    parts.push(network.strictSSL ? `TLS verified against ${network.caBundle ? `Node's CAs plus ${network.caBundle}` : "Node's built-in CAs"}` : 'TLS NOT verified (http.proxyStrictSSL is off)');
  }
  return parts.join(', ');
}

function isLocal(hostname: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/i.test(hostname);
}
