// Validation of /v1/apps/chat-messages requests (D17, D18).
import { HttpError, badRequest, jsonTypeName, requiredString } from './httpErrors';
import { CHAT_MODELS, type ChatModel } from './models';
import { assertMayAccess, parseVolume, volumeName } from './volumes';

export const AGENTS: ReadonlySet<string> = new Set(['rag-agent']);

export interface ValidAgentRequest {
  agentId: string;
  threadId?: string;
  query: string;
  fileIds: string[];
  model: ChatModel;
  enableThinking: boolean;
  volumes: string[];
  /** D18: false leaves the personal volume out unless context.volumes names it. */
  searchPersonalVolume: boolean;
  /** Accepted and recorded with the turn (D18); the local agent has no tools to run. */
  tools: Record<string, unknown>[];
  stream: boolean;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function validateFiles(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw badRequest('files must be an array of {file_id, filename, size}', 'files');
  return value.map((entry, i) => {
    const at = `files[${i}]`;
    if (!isObject(entry)) throw badRequest(`${at} must be an object`, at);
    if (typeof entry.file_id !== 'string' || !entry.file_id) throw badRequest(`${at}.file_id must be a non-empty string`, `${at}.file_id`);
    if (typeof entry.filename !== 'string') throw badRequest(`${at}.filename must be a string`, `${at}.filename`);
    if (typeof entry.size !== 'number' || !Number.isInteger(entry.size) || entry.size < 0) {
      throw badRequest(`${at}.size must be a non-negative integer`, `${at}.size`);
    }
    return entry.file_id;
  });
}

export function validateAgentRequest(body: Record<string, unknown>, userId: string): ValidAgentRequest {
  const agentId = requiredString(body.agent_id, 'agent_id');
  if (!AGENTS.has(agentId)) throw new HttpError(404, `unknown agent "${agentId.slice(0, 100)}" (known: ${[...AGENTS].join(', ')})`, 'agent_id');
  const threadId = body.thread_id;
  if (threadId !== undefined && threadId !== null && (typeof threadId !== 'string' || !threadId)) {
    throw badRequest('thread_id must be a string, or null to start a new thread', 'thread_id');
  }
  if (typeof body.query !== 'string' || !body.query.trim()) throw badRequest('query must be a non-empty string', 'query');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw badRequest('stream must be a boolean', 'stream');
  if (body.user !== undefined && typeof body.user !== 'string') throw badRequest('user must be a string', 'user');
  const fileIds = validateFiles(body.files);
  const context = body.context;
  if (context === undefined || context === null) throw badRequest('context.model is required (context is missing)', 'context.model');
  if (!isObject(context)) throw badRequest(`context must be an object holding model, got ${jsonTypeName(context)}`, 'context');
  const modelId = requiredString(context.model, 'context.model', 'a model id (string)');
  const model = CHAT_MODELS.get(modelId);
  if (!model) throw new HttpError(404, `unknown model "${modelId.slice(0, 100)}"`, 'context.model');
  if (context.enable_thinking !== undefined && context.enable_thinking !== null && typeof context.enable_thinking !== 'boolean') {
    throw badRequest('context.enable_thinking must be a boolean', 'context.enable_thinking');
  }
  if (context.tools !== undefined && (!Array.isArray(context.tools) || !context.tools.every(isObject))) {
    throw badRequest('context.tools must be an array of objects', 'context.tools');
  }
  let volumes: string[] = [];
  if (context.volumes !== undefined && context.volumes !== null) {
    if (!Array.isArray(context.volumes)) throw badRequest('context.volumes must be an array of volume names', 'context.volumes');
    volumes = context.volumes.map((value, i) => {
      const ref = parseVolume(value, `context.volumes[${i}]`);
      assertMayAccess(ref, userId, `context.volumes[${i}]`);
      return volumeName(ref);
    });
  }
  const searchPersonal = context.search_personal_volume;
  if (searchPersonal !== undefined && searchPersonal !== null && typeof searchPersonal !== 'boolean') {
    throw badRequest('context.search_personal_volume must be a boolean', 'context.search_personal_volume');
  }
  return {
    agentId,
    searchPersonalVolume: searchPersonal !== false,
    threadId: (threadId ?? undefined) as string | undefined,
    query: body.query,
    fileIds,
    model,
    enableThinking: context.enable_thinking === true,
    volumes,
    tools: (context.tools ?? []) as Record<string, unknown>[],
    stream: body.stream !== false,
  };
}
