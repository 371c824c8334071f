// Request dispatch: test controls, faults that act on arrival, authentication (D1), routes.
import { setTimeout as sleep } from 'node:timers/promises';
import { handleAgentMessage } from './agentRoute';
import { handleCompletion } from './completionsRoute';
import type { RequestContext } from './context';
import { parseDialect } from './dialects';
import { parseFaultRule } from './faults';
import { handleDelete, handleList, handleUpload } from './filesRoutes';
import { HttpError, errorBody, readJsonBody, sendHtmlError, sendJson } from './httpErrors';

type Handler = (ctx: RequestContext) => Promise<void>;

const ROUTES: Record<string, Record<string, Handler>> = {
  '/ksm/rag/v5/files': { POST: handleUpload, GET: handleList, DELETE: handleDelete },
  '/v3/chat/completions': { POST: handleCompletion },
  '/v1/apps/chat-messages': { POST: handleAgentMessage },
};

export async function routeRequest(ctx: RequestContext, config: { apiKeys: Record<string, string>; testControls: boolean }): Promise<void> {
  const { path, method, shared } = ctx;
  if (path.startsWith('/_emulator/')) {
    if (!config.testControls) throw new HttpError(404, `no endpoint ${method} ${path} (test controls are off)`);
    return handleTestControl(ctx);
  }
  shared.stats.requests += 1;

  const latency = shared.faults.take(path, method, ['latency']);
  if (latency) await waitUnlessClosed(ctx, (closed) => sleep(latency.ms, undefined, { signal: closed }));
  if (shared.faults.take(path, method, ['hold'])) await waitUnlessClosed(ctx, (closed) => shared.faults.hold(closed));
  const status = shared.faults.take(path, method, ['status']);
  if (status) {
    const headers: Record<string, string> = status.retryAfter !== undefined ? { 'Retry-After': String(status.retryAfter) } : {};
    if (!ctx.req.complete) {
      headers.Connection = 'close';
      ctx.req.resume();
    }
    if (status.body === 'html') return sendHtmlError(ctx.res, status.status, headers);
    return sendJson(ctx.res, status.status, errorBody(status.status, `injected fault: HTTP ${status.status}`, null), headers);
  }

  const userId = authenticate(ctx.req.headers.authorization, config.apiKeys);
  const handler = ROUTES[path]?.[method];
  if (!handler) throw new HttpError(404, `no endpoint ${method} ${path}`);
  ctx.userId = userId;
  await handler(ctx);
}

/** D1, with a message that names what is wrong with the header (never echoing the key). */
function authenticate(header: string | undefined, apiKeys: Record<string, string>): string {
  const value = (header ?? '').trim();
  if (!value) throw new HttpError(401, 'missing API key: send Authorization: Bearer <key>');
  const [scheme, ...rest] = value.split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') {
    throw new HttpError(401, `malformed Authorization header: the scheme must be Bearer, got "${scheme.slice(0, 20)}" (send Authorization: Bearer <key>)`);
  }
  if (rest.length === 0) throw new HttpError(401, 'malformed Authorization header: "Bearer" without a key (send Authorization: Bearer <key>)');
  if (rest.length > 1) {
    throw new HttpError(401, `malformed Authorization header: expected "Bearer <key>", got ${rest.length} words after Bearer (a key has no spaces; check for a pasted extra word)`);
  }
  const match = [value, rest[0]];
  const userId = Object.hasOwn(apiKeys, match[1]) ? apiKeys[match[1]] : undefined;
  if (!userId) throw new HttpError(401, 'the API key is not valid');
  return userId;
}

async function handleTestControl(ctx: RequestContext): Promise<void> {
  const { path, method, shared, res } = ctx;
  if (path === '/_emulator/faults' && method === 'POST') {
    const rule = parseFaultRule(await readJsonBody(ctx.req));
    shared.faults.add(rule);
    return sendJson(res, 200, { code: 200, message: 'OK', rule: { ...rule, times: rule.times === Infinity ? 'always' : (rule.times ?? 1) } });
  }
  if (path === '/_emulator/faults/release' && method === 'POST') {
    return sendJson(res, 200, { code: 200, message: 'OK', released: shared.faults.release() });
  }
  if (path === '/_emulator/faults' && method === 'DELETE') {
    shared.faults.clear();
    return sendJson(res, 200, { code: 200, message: 'OK' });
  }
  if (path === '/_emulator/dialect' && (method === 'PUT' || method === 'POST')) {
    const body = await readJsonBody(ctx.req);
    shared.dialect = parseDialect(body.dialect);
    return sendJson(res, 200, { code: 200, message: 'OK', dialect: shared.dialect });
  }
  if (path === '/_emulator/dialect' && method === 'GET') {
    return sendJson(res, 200, { code: 200, message: 'OK', dialect: shared.dialect });
  }
  if (path === '/_emulator/stats' && method === 'GET') {
    return sendJson(res, 200, { code: 200, message: 'OK', ...shared.stats, processing: shared.processor.busy });
  }
  throw new HttpError(404, `no test control ${method} ${path}`);
}

/**
 * A fault's wait (`latency`'s time, `hold`'s release), cut short when the connection closes
 * (the client gave up, or the emulator is closing), so close() never waits out an injected
 * delay or a hold nobody releases. The request still goes on to its handler, which meets a
 * closed connection like a real server would.
 */
async function waitUnlessClosed(ctx: RequestContext, wait: (closed: AbortSignal) => Promise<void>): Promise<void> {
  const closed = new AbortController();
  const onClose = () => closed.abort();
  ctx.res.once('close', onClose);
  try {
    await wait(closed.signal);
  } catch {
    // closed: nothing to wait for
  } finally {
    ctx.res.off('close', onClose);
  }
}
