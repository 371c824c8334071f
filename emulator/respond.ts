// Sends JSON answers through the fault book, so `truncate-json` and `reset` can act.
import type { RequestContext } from './context';
import { sendJson } from './httpErrors';

export function respondJson(ctx: RequestContext, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const fault = ctx.shared.faults.take(ctx.path, ctx.method, ['truncate-json', 'reset']);
  if (fault?.kind === 'reset') {
    ctx.req.socket.destroy();
    return;
  }
  if (fault?.kind === 'truncate-json') {
    const text = JSON.stringify(body);
    const cut = Buffer.from(text).subarray(0, Math.max(1, Math.floor(Buffer.byteLength(text) / 2)));
    ctx.res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': cut.length, ...headers });
    ctx.res.end(cut);
    return;
  }
  sendJson(ctx.res, status, body, headers);
}
