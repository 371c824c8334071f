// The RAG file endpoints: upload (D7), list (D6, D10), delete (D11).
import type { RequestContext } from './context';
import { EMBEDDING_MODEL } from './embedder';
import { HttpError, badRequest, errorBody, readJsonBody } from './httpErrors';
import { serviceDate, toWire, type DoChunking } from './records';
import { respondJson } from './respond';
import { discardStaged, receiveUpload } from './uploadReceive';
import { assertMayAccess, parseVolume, volumeName } from './volumes';

export const KNOWN_EMBEDDING_MODELS: ReadonlySet<string> = new Set([EMBEDDING_MODEL]);

export async function handleUpload(ctx: RequestContext): Promise<void> {
  const { fields, files } = await receiveUpload(ctx);
  try {
    const volumeRef = parseVolume(fields.get('volume'));
    assertMayAccess(volumeRef, ctx.userId);
    const embedding = fields.get('embedding');
    if (!embedding) throw badRequest('embedding is required', 'embedding');
    if (!KNOWN_EMBEDDING_MODELS.has(embedding)) {
      throw badRequest(`unknown embedding model "${embedding}" (known: ${[...KNOWN_EMBEDDING_MODELS].join(', ')})`, 'embedding');
    }
    const doChunking = parseDoChunking(fields.get('do_chunking'));
    if (files.length === 0) throw badRequest('at least one file part is required', 'file');
    const unnamed = files.findIndex((file) => !file.filename.trim());
    if (unnamed >= 0) throw badRequest(`file part ${unnamed + 1} has an empty filename`, 'file');

    const records = await ctx.shared.store.commitUpload(volumeName(volumeRef), files, {
      embedding,
      doChunking,
      date: serviceDate(new Date()),
    });
    ctx.shared.log(`uploaded ${records.length} file(s) to ${volumeName(volumeRef)}`);
    respondJson(ctx, 200, { code: 200, message: 'OK', infoz: records.map(toWire) });
    for (const record of records) ctx.shared.processor.enqueue(record);
  } catch (error) {
    await discardStaged(files);
    throw error;
  }
}

function parseDoChunking(value: string | undefined): DoChunking {
  if (value === undefined || value === '') return 0;
  if (value === '0' || value === '1' || value === '2') return Number(value) as DoChunking;
  throw badRequest(`do_chunking must be 0, 1 or 2, got "${value.slice(0, 20)}"`, 'do_chunking');
}

function integerParam(body: Record<string, unknown>, key: string, fallback: number, min: number, max: number): number {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw badRequest(`${key} must be an integer between ${min} and ${max}`, key);
  }
  return value;
}

export async function handleList(ctx: RequestContext): Promise<void> {
  const body = await readJsonBody(ctx.req);
  const volumeRef = parseVolume(body.volume);
  assertMayAccess(volumeRef, ctx.userId);
  const offset = integerParam(body, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = integerParam(body, 'limit', 20, 1, 1000);
  const name = volumeName(volumeRef);
  if (volumeRef.kind === 'named' && !ctx.shared.store.hasVolume(name)) {
    throw new HttpError(404, `volume "${name}" does not exist yet: upload a file to create it`, 'volume');
  }
  // One page through the (volume, seq) index and a count: a 40,000-file volume costs what a small one does.
  const total = ctx.shared.store.countFiles(name);
  respondJson(ctx, 200, {
    code: 200,
    message: 'OK',
    total,
    infoz: ctx.shared.store.listFiles(name, offset, limit).map(toWire),
  });
}

export async function handleDelete(ctx: RequestContext): Promise<void> {
  const body = await readJsonBody(ctx.req);
  const volumeRef = parseVolume(body.volume);
  assertMayAccess(volumeRef, ctx.userId);
  const uuids = body.uuidz;
  if (!Array.isArray(uuids) || uuids.length === 0 || !uuids.every((id) => typeof id === 'string' && id.length > 0)) {
    throw badRequest('uuidz must be a non-empty array of file ids (strings)', 'uuidz');
  }
  const { deleted, notFound } = await ctx.shared.store.deleteFiles(volumeName(volumeRef), [...new Set(uuids as string[])]);
  if (deleted.length === 0) {
    respondJson(ctx, 404, errorBody(404, `none of the ${notFound.length} file id(s) exist in ${volumeName(volumeRef)}`, 'uuidz', { not_found: notFound }));
    return;
  }
  respondJson(ctx, 200, { code: 200, message: 'OK', deleted, not_found: notFound });
}
