// The entry of dist/vendor/undici.js (esbuild.mjs): only the parts of undici that src/ uses at
// run time (`request`, `Agent`, `ProxyAgent`, `EnvHttpProxyAgent`), instead of its index,
// which also loads and runs fetch, WebSocket, EventSource, the caches, the mock agents and
// every interceptor on the first `require`: about 60 ms of CPU at every `ksm` start for code
// no command runs (issue 21: the time before a first sync's first request counts against curl).
// `request` is made as undici's own index makes it (`makeDispatcher(api.request)`, undici 7.x).
// The types still come from 'undici' itself. test/api/undiciVendor.test.ts builds this file and
// sends requests through it (direct and through proxies); the CLI tests run the built CLI,
// so every request they make goes through it. A path that moves in an undici upgrade fails the build.
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import api from 'undici/lib/api/index.js';
import errors from 'undici/lib/core/errors.js';
import util from 'undici/lib/core/util.js';
import globalDispatcher from 'undici/lib/global.js';

const { InvalidArgumentError } = errors;

// As undici's index does: every dispatcher gets request, stream, pipeline, connect, upgrade
// (a ProxyAgent's tunnel is a `connect`).
Object.assign(Dispatcher.prototype, api);

/** undici/index.js's `makeDispatcher`, for `request` only. */
function request(url, opts, handler) {
  if (typeof opts === 'function') {
    handler = opts;
    opts = null;
  }
  if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) throw new InvalidArgumentError('invalid url');
  if (opts != null && typeof opts !== 'object') throw new InvalidArgumentError('invalid opts');
  if (opts && opts.path != null) {
    if (typeof opts.path !== 'string') throw new InvalidArgumentError('invalid opts.path');
    const path = opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
    url = new URL(util.parseOrigin(url).origin + path);
  } else {
    if (!opts) opts = typeof url === 'object' ? url : {};
    url = util.parseURL(url);
  }
  const { agent, dispatcher = globalDispatcher.getGlobalDispatcher() } = opts;
  if (agent) throw new InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
  return api.request.call(dispatcher, { ...opts, origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname, method: opts.method || (opts.body ? 'PUT' : 'GET') }, handler);
}

export { Agent, EnvHttpProxyAgent, ProxyAgent, request };
