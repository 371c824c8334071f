// Validation of /v3/chat/completions requests (D12): every parameter and range of the
// reference, each failure a 400 naming the field, unknown model a 404.
import { HttpError, badRequest, requiredString } from './httpErrors';
import { CHAT_MODELS, type ChatModel } from './models';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ValidMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_call_id?: string;
  tool_calls?: ToolCall[];
}

export interface ValidTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface ValidCompletionRequest {
  model: ChatModel;
  messages: ValidMessage[];
  stream: boolean;
  temperature: number;
  seed?: number;
  stop: string[];
  maxCompletionTokens?: number;
  responseFormat: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; schema: Record<string, unknown> };
  reasoning?: { effort?: 'low' | 'medium' | 'high'; budgetTokens?: number };
  tools: ValidTool[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const present = (value: unknown) => value !== undefined && value !== null;

function numberInRange(body: Record<string, unknown>, key: string, min: number, max: number, minExclusive = false): number | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  const ok = typeof value === 'number' && Number.isFinite(value) && (minExclusive ? value > min : value >= min) && value <= max;
  if (!ok) throw badRequest(`${key} must be a number between ${min}${minExclusive ? ' (exclusive)' : ''} and ${max}`, key);
  return value as number;
}

function positiveInteger(value: unknown, param: string): number | undefined {
  if (!present(value)) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw badRequest(`${param} must be a positive integer`, param);
  return value;
}

function validateMessages(value: unknown): ValidMessage[] {
  if (!Array.isArray(value) || value.length === 0) throw badRequest('messages must be a non-empty array', 'messages');
  return value.map((message, i): ValidMessage => {
    const at = `messages[${i}]`;
    if (!isObject(message)) throw badRequest(`${at} must be an object`, at);
    const role = message.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw badRequest(`${at}.role must be system, user, assistant or tool`, `${at}.role`);
    }
    const toolCalls = role === 'assistant' && Array.isArray(message.tool_calls) ? (message.tool_calls as ToolCall[]) : undefined;
    // An assistant turn that only called tools carries no text (OpenAI sends null there).
    const content = message.content === null && toolCalls ? '' : message.content;
    if (typeof content !== 'string') throw badRequest(`${at}.content must be a string`, `${at}.content`);
    if (role === 'tool' && (typeof message.tool_call_id !== 'string' || !message.tool_call_id)) {
      throw badRequest(`${at}.tool_call_id is required on a tool message`, `${at}.tool_call_id`);
    }
    return { role, content, tool_call_id: message.tool_call_id as string | undefined, tool_calls: toolCalls };
  });
}

function validateMetadata(value: unknown): void {
  if (!present(value)) return;
  if (!isObject(value)) throw badRequest('metadata must be an object of string values', 'metadata');
  const entries = Object.entries(value);
  if (entries.length > 16) throw badRequest('metadata may have at most 16 key-value pairs', 'metadata');
  for (const [key, item] of entries) {
    if (key.length > 64) throw badRequest(`metadata key "${key.slice(0, 20)}…" is longer than 64 characters`, 'metadata');
    if (typeof item !== 'string' || item.length > 512) {
      throw badRequest(`metadata value of "${key}" must be a string of at most 512 characters`, 'metadata');
    }
  }
}

function validateStop(value: unknown): string[] {
  if (!present(value)) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length > 4 || !list.every((s) => typeof s === 'string' && s.length > 0)) {
    throw badRequest('stop must be a non-empty string or an array of up to 4 non-empty strings', 'stop');
  }
  return list as string[];
}

function validateResponseFormat(value: unknown): ValidCompletionRequest['responseFormat'] {
  if (!present(value)) return { type: 'text' };
  if (!isObject(value)) throw badRequest('response_format must be an object', 'response_format');
  if (value.type === 'text' || value.type === 'json_object') return { type: value.type };
  if (value.type !== 'json_schema') throw badRequest('response_format.type must be text, json_object or json_schema', 'response_format.type');
  const given = value.json_schema;
  if (!isObject(given)) throw badRequest('response_format.json_schema must be a JSON Schema object', 'response_format.json_schema');
  // The reference puts the schema itself here; OpenAI wraps it as {name, schema}. Accept both.
  const schema = isObject(given.schema) && typeof given.name === 'string' ? given.schema : given;
  if (present(schema.type) && schema.type !== 'object') {
    throw badRequest('response_format.json_schema must describe an object (type "object")', 'response_format.json_schema');
  }
  return { type: 'json_schema', schema };
}

function validateReasoning(value: unknown, model: ChatModel): ValidCompletionRequest['reasoning'] {
  if (!present(value)) return undefined;
  if (!isObject(value)) throw badRequest('reasoning must be an object', 'reasoning');
  if (!model.reasoning) throw badRequest(`model ${model.id} does not support reasoning`, 'reasoning');
  const effort = value.effort;
  if (present(effort) && effort !== 'low' && effort !== 'medium' && effort !== 'high') {
    throw badRequest('reasoning.effort must be low, medium or high', 'reasoning.effort');
  }
  const budgetTokens = positiveInteger(value.budget_tokens, 'reasoning.budget_tokens');
  if (budgetTokens !== undefined && present(effort)) {
    throw badRequest('reasoning.budget_tokens is only allowed when reasoning.effort is null', 'reasoning.budget_tokens');
  }
  return { effort: (effort ?? undefined) as 'low' | 'medium' | 'high' | undefined, budgetTokens };
}

function validateTools(value: unknown): ValidTool[] {
  if (!present(value)) return [];
  if (!Array.isArray(value)) throw badRequest('tools must be an array', 'tools');
  return value.map((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool) || tool.type !== 'function') throw badRequest(`${at}.type must be "function"`, `${at}.type`);
    const fn = tool.function;
    if (!isObject(fn) || typeof fn.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(fn.name)) {
      throw badRequest(`${at}.function.name is required (letters, digits, _ or -, up to 64)`, `${at}.function.name`);
    }
    if (present(fn.parameters) && !isObject(fn.parameters)) throw badRequest(`${at}.function.parameters must be a JSON Schema object`, `${at}.function.parameters`);
    return { name: fn.name, description: typeof fn.description === 'string' ? fn.description : undefined, parameters: fn.parameters as Record<string, unknown> | undefined };
  });
}

export function validateCompletionRequest(body: Record<string, unknown>): ValidCompletionRequest {
  const modelId = requiredString(body.model, 'model', 'a model id (string)');
  const model = CHAT_MODELS.get(modelId);
  if (!model) throw new HttpError(404, `unknown model "${modelId.slice(0, 100)}" (known: ${[...CHAT_MODELS.keys()].join(', ')})`, 'model');
  const messages = validateMessages(body.messages);
  if (present(body.stream) && typeof body.stream !== 'boolean') throw badRequest('stream must be a boolean', 'stream');
  const temperature = numberInRange(body, 'temperature', 0, 2) ?? 0.3;
  numberInRange(body, 'top_p', 0, 1, true);
  numberInRange(body, 'frequency_penalty', -2, 2);
  numberInRange(body, 'repetition_penalty', 0, 2);
  validateMetadata(body.metadata);
  if (present(body.seed) && (typeof body.seed !== 'number' || !Number.isInteger(body.seed))) throw badRequest('seed must be an integer', 'seed');
  if (present(body.output_parser) && body.output_parser !== 'responses') throw badRequest('output_parser must be null or "responses"', 'output_parser');
  if (present(body.user) && typeof body.user !== 'string') throw badRequest('user must be a string', 'user');
  const seed = present(body.seed) && body.seed !== -1 ? (body.seed as number) : undefined;
  return {
    model,
    messages,
    stream: body.stream === true,
    temperature,
    seed,
    stop: validateStop(body.stop),
    maxCompletionTokens: positiveInteger(body.max_completion_tokens, 'max_completion_tokens'),
    responseFormat: validateResponseFormat(body.response_format),
    reasoning: validateReasoning(body.reasoning, model),
    tools: validateTools(body.tools),
  };
}
