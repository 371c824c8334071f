// Check Connection's first two steps: is the address usable, and does anything answer there
// (DNS, connection, proxy and TLS), before the key is ever sent.
import * as l10n from '@vscode/l10n';
import { checkBaseUrl } from '../../api/baseUrl';
import { errorFirstLine } from '../../api/errors';
import type { CheckStep, NetworkSummary } from './checkRun';
import { addressAdvice } from '../../common/core/errorFixes';

export const addressStep: CheckStep = {
  id: 'address',
  get title() {
    return l10n.t('Service address');
  },
  async run(check) {
    try {
      check.url = checkBaseUrl(check.target.baseUrl).url;
    } catch (error) {
      const fix = addressAdvice(check.fixContext, 'invalid');
      check.add({ id: 'address', title: this.title, status: 'failed', detail: errorFirstLine(error), problem: 'address', fix });
      return l10n.t('the service address is not usable');
    }
    const parsed = new URL(check.url);
    check.fixContext.host = parsed.host;
    const secure = parsed.protocol === 'https:';
    const local = isLocal(parsed.hostname);
    check.add({
      id: 'address',
      title: this.title,
      status: secure || local ? 'passed' : 'warning',
      detail: secure ? `${check.url} (https).` : local ? l10n.t('{0} (plain http on this machine).', check.url) : l10n.t('{0} (plain http: the key travels unencrypted).', check.url),
      ...(secure || local ? {} : { fix: l10n.t('Use an https:// address unless this is a trusted local network.') }),
    });
    return undefined;
  },
};

/** Any HTTP answer proves DNS, connection, proxy and TLS. */
export const reachStep: CheckStep = {
  id: 'reach',
  get title() {
    return l10n.t('Reach the service (network, proxy, TLS)');
  },
  async run(check) {
    const reach = await check.timed(() => check.deps.probe(`${check.url}/`));
    if (reach.error) {
      check.failed('reach', this.title, reach.error, 'reach', reach.ms);
      return l10n.t('the service could not be reached');
    }
    const probe = reach.value!;
    const type = probe.contentType ? ` (${probe.contentType.split(';')[0]})` : '';
    check.add({
      id: 'reach',
      title: this.title,
      status: 'passed',
      ms: reach.ms,
      detail: l10n.t('GET {0}/ answered HTTP {1}{2} {3}.', check.url, probe.status, type, networkPath(check.target.network, check.url)),
    });
    return undefined;
  },
};

function networkPath(network: NetworkSummary, url: string): string {
  const bypass = network.noProxy?.length ? l10n.t(' (hosts on http.noProxy go direct: {0})', network.noProxy.join(', ')) : '';
  const parts = [network.proxy ? l10n.t('through the proxy {0}{1}', network.proxy, bypass) : l10n.t('directly (no proxy)')];
  if (url.startsWith('https:')) {
    parts.push(
      network.strictSSL
        ? network.caBundle
          ? l10n.t("TLS verified against Node's CAs plus {0}", network.caBundle)
          : l10n.t("TLS verified against Node's built-in CAs")
        : l10n.t('TLS NOT verified (http.proxyStrictSSL is off)'),
    );
  }
  return parts.join(', ');
}

function isLocal(hostname: string): boolean {
  return /^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?)$/i.test(hostname);
}
