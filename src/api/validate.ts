// Checks every request before it is sent (D5, D7, D10-D12, D17, D18): a bad value is an
// InvalidRequestError without `status` (a local refusal, no round trip), naming the field.
import * as l10n from '@vscode/l10n';
import { effortAndBudgetProblem, reasoningEffortProblem, tokenCountProblem, wireRules } from './chatParameterLimits';
import { InvalidRequestError } from './errors';
import { DEFAULT_AGENT_ID, type AgentRequest, type ChatCompletionRequest, type UploadRequest } from './types';

const NAMED_VOLUME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const PERSONAL_VOLUME = /^\{[A-Za-z0-9._@-]{1,128}\}$/;
const CHAT_ROLES = new Set(['system', 'user', 'assistant', 'tool']);

function refuse(param: string, message: string): never {
  throw new InvalidRequestError(l10n.t('Invalid request: {0}', message), { param });
}

function isInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

export function validateVolume(volume: unknown): void {
  if (typeof volume !== 'string' || !(NAMED_VOLUME.test(volume) || PERSONAL_VOLUME.test(volume))) {
    refuse('volume', l10n.t("'{0}' is not a volume name (letters, digits, '.', '_' and '-', up to 128 characters, or '{1}' for a personal volume).", String(volume), '{user-id}'));
  }
}

export function validateListRequest(request: { volume: string; offset?: number; limit?: number }): void {
  validateVolume(request.volume);
  if (request.offset !== undefined && !(isInt(request.offset) && request.offset >= 0)) refuse('offset', l10n.t('offset must be an integer ≥ 0.'));
  if (request.limit !== undefined && !(isInt(request.limit) && request.limit >= 1 && request.limit <= 1000)) refuse('limit', l10n.t('limit must be an integer from 1 to 1000.'));
}

export function validateDeleteRequest(request: { volume: string; uuids: string[] }): void {
  validateVolume(request.volume);
  if (!Array.isArray(request.uuids) || request.uuids.length === 0) refuse('uuidz', l10n.t('give at least one file id to delete.'));
  if (request.uuids.some((id) => typeof id !== 'string' || id === '')) refuse('uuidz', l10n.t('file ids must be non-empty strings.'));
}

export function validateUploadRequest(request: UploadRequest): void {
  validateVolume(request.volume);
  if (typeof request.embedding !== 'string' || !request.embedding.trim()) refuse('embedding', l10n.t('an embedding model id is required (setting ksm.upload.embeddingModel).'));
  if (request.doChunking !== undefined && ![0, 1, 2].includes(request.doChunking)) refuse('do_chunking', l10n.t('do_chunking must be 0, 1 or 2.'));
  if (!Array.isArray(request.files) || request.files.length === 0) refuse('file', l10n.t('no files to upload.'));
  for (const file of request.files) {
    if (!file || typeof file.path !== 'string' || !file.path) refuse('file', l10n.t('every file needs a path.'));
    if (file.filename !== undefined && (typeof file.filename !== 'string' || !file.filename.trim())) refuse('file', l10n.t('an empty file name was given for {0}.', file.path));
  }
}

/**
 * Refuses `field` when set (not null) and `problemOf` finds fault (limits: chatParameterLimits.ts).
 * The sentence after the wire field's name is the table's English on purpose: this check names
 * wire fields (`top_p`) for the CLI, scripts and the logs, and no form reaches it with a bad
 * value (the ⚙ form and VS Code's Chat refuse first, in the UI language:
 * src/common/core/parameterText.ts).
 */
function check(field: string, value: unknown, problemOf: (value: unknown) => string | undefined): void {
  if (value === undefined || value === null) return;
  const problem = problemOf(value);
  if (problem) refuse(field, `${field} ${problem}`);
}

function validateMessages(messages: unknown): void {
  if (!Array.isArray(messages) || messages.length === 0) refuse('messages', l10n.t('messages must be a non-empty list.'));
  messages.forEach((message: unknown, i) => {
    const m = message as Record<string, unknown> | null;
    if (!m || typeof m !== 'object') refuse('messages', l10n.t('message {0} is not an object.', i));
    if (typeof m.role !== 'string' || !CHAT_ROLES.has(m.role)) refuse('messages', l10n.t("message {0} has role '{1}'; use system, user, assistant or tool.", i, String(m.role)));
    if (typeof m.content !== 'string') refuse('messages', l10n.t('message {0} content must be a string.', i));
    if (m.role === 'tool' && (typeof m.tool_call_id !== 'string' || !m.tool_call_id)) refuse('messages', l10n.t('tool message {0} needs tool_call_id.', i));
  });
}

function validateMetadata(metadata: unknown): void {
  if (metadata === undefined || metadata === null) return;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) refuse('metadata', l10n.t('metadata must be an object of string values.'));
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > 16) refuse('metadata', l10n.t('metadata has {0} pairs; at most 16 are allowed.', entries.length));
  for (const [key, value] of entries) {
    if (key.length > 64) refuse('metadata', l10n.t("metadata key '{0}…' is longer than 64 characters.", key.slice(0, 20)));
    if (typeof value !== 'string' || value.length > 512) refuse('metadata', l10n.t("metadata value of '{0}' must be a string of at most 512 characters.", key));
  }
}

function validateReasoning(reasoning: unknown): void {
  if (reasoning === undefined || reasoning === null) return;
  if (typeof reasoning !== 'object') refuse('reasoning', l10n.t('reasoning must be an object.'));
  const { effort, budget_tokens: budget } = reasoning as Record<string, unknown>;
  check('reasoning.effort', effort, reasoningEffortProblem);
  check('reasoning.budget_tokens', budget, tokenCountProblem);
  const both = effortAndBudgetProblem(effort, budget);
  if (both) refuse('reasoning.budget_tokens', both);
}

function validateResponseFormat(format: unknown): void {
  if (format === undefined) return;
  const f = format as Record<string, unknown> | null;
  if (!f || typeof f !== 'object' || !['text', 'json_object', 'json_schema'].includes(f.type as string))
    refuse('response_format', l10n.t('response_format.type must be text, json_object or json_schema.'));
  if (f.type === 'json_schema' && (!f.json_schema || typeof f.json_schema !== 'object' || Array.isArray(f.json_schema))) refuse('response_format', l10n.t('json_schema needs a JSON Schema object.'));
}

function validateTools(tools: unknown): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) refuse('tools', l10n.t('tools must be a list.'));
  tools.forEach((tool: unknown, i) => {
    const t = tool as { type?: unknown; function?: { name?: unknown } } | null;
    if (!t || t.type !== 'function' || !t.function || typeof t.function.name !== 'string' || !t.function.name)
      refuse('tools', l10n.t('tool {0} must be {1}.', i, "{type: 'function', function: {name}}"));
  });
}

export function validateChatRequest(request: ChatCompletionRequest): void {
  validateMessages(request.messages);
  if (typeof request.model !== 'string' || !request.model.trim()) refuse('model', l10n.t('a model id is required.'));
  // The fields the one parameter table sends as they are (temperature, top_p, max tokens,
  // stop, seed, the penalties): the same rules the ⚙ form and the host apply.
  const wire = request as unknown as Record<string, unknown>;
  for (const [field, rule] of wireRules()) check(field, wire[field], rule.problem);
  validateMetadata(request.metadata);
  validateReasoning(request.reasoning);
  validateResponseFormat(request.response_format);
  validateTools(request.tools);
  if (request.output_parser !== undefined && request.output_parser !== null && request.output_parser !== 'responses') refuse('output_parser', l10n.t('output_parser must be null or "responses".'));
  if (request.user !== undefined && typeof request.user !== 'string') refuse('user', l10n.t('user must be a string.'));
}

export function validateAgentRequest(request: AgentRequest): void {
  if (typeof request.agent_id !== 'string' || !request.agent_id.trim()) refuse('agent_id', l10n.t('an agent id is required (setting ksm.agent.id).'));
  if (request.thread_id !== undefined && request.thread_id !== null && (typeof request.thread_id !== 'string' || !request.thread_id))
    refuse('thread_id', l10n.t('thread_id must be a non-empty string or null.'));
  if (typeof request.query !== 'string' || !request.query.trim()) refuse('query', l10n.t('the question is empty.'));
  if (request.files !== undefined) {
    if (!Array.isArray(request.files)) refuse('files', l10n.t('files must be a list.'));
    for (const file of request.files) {
      if (!file || typeof file.file_id !== 'string' || !file.file_id || typeof file.filename !== 'string' || !isInt(file.size) || file.size < 0) {
        refuse('files', l10n.t('every file needs file_id, filename and an integer size.'));
      }
    }
  }
  const context = request.context;
  if (context !== undefined) {
    if (!context || typeof context !== 'object') refuse('context', l10n.t('context must be an object.'));
    if (request.agent_id === DEFAULT_AGENT_ID && (typeof context.model !== 'string' || !context.model.trim()))
      refuse('context.model', l10n.t('{0} answers only with a chat model in context.model.', DEFAULT_AGENT_ID));
    if (context.enable_thinking !== undefined && typeof context.enable_thinking !== 'boolean') refuse('context.enable_thinking', l10n.t('enable_thinking must be true or false.'));
    if (context.tools !== undefined && !Array.isArray(context.tools)) refuse('context.tools', l10n.t('context.tools must be a list.'));
    if (context.search_personal_volume !== undefined && typeof context.search_personal_volume !== 'boolean') {
      refuse('context.search_personal_volume', l10n.t('search_personal_volume must be true or false.'));
    }
    if (context.volumes !== undefined) {
      if (!Array.isArray(context.volumes)) refuse('context.volumes', l10n.t('context.volumes must be a list of volume names.'));
      context.volumes.forEach(validateVolume);
    }
  } else if (request.agent_id === DEFAULT_AGENT_ID) {
    refuse('context.model', l10n.t('{0} answers only with a chat model in context.model.', DEFAULT_AGENT_ID));
  }
}
