// Local validation of every request (D5, D7, D10-D12, D17, D18): a bad value is refused
// with InvalidRequestError naming the field and carrying no HTTP status.
import { strict as assert } from 'node:assert';
import { InvalidRequestError } from '../../src/api/errors';
import type { AgentRequest, ChatCompletionRequest } from '../../src/api/types';
import { validateAgentRequest, validateChatRequest, validateDeleteRequest, validateListRequest, validateUploadRequest } from '../../src/api/validate';

const chat = (extra: Record<string, unknown> = {}): ChatCompletionRequest => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra }) as ChatCompletionRequest;
const agent = (extra: Record<string, unknown> = {}): AgentRequest => ({ agent_id: 'rag-agent', query: 'q', context: { model: 'm' }, ...extra }) as AgentRequest;

function refuses(run: () => void, param: string): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof InvalidRequestError, String(e));
    assert.equal(e.param, param);
    assert.equal(e.status, undefined);
    return true;
  });
}

describe('api validation', () => {
  it('accepts a full valid chat request', () => {
    validateChatRequest(
      chat({
        temperature: 2,
        top_p: 1,
        frequency_penalty: -2,
        repetition_penalty: 0,
        seed: -1,
        max_completion_tokens: 10,
        metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, 'v'])),
        stop: ['a', 'b', 'c', 'd'],
        reasoning: { effort: null, budget_tokens: 100 },
        response_format: { type: 'json_schema', json_schema: { type: 'object' } },
        tools: [{ type: 'function', function: { name: 'f' } }],
        user: 'u',
      }),
    );
    validateChatRequest(chat({ temperature: null, stop: 'x', reasoning: null, metadata: null }));
  });

  it('checks each chat range at its edges (D12)', () => {
    refuses(() => validateChatRequest(chat({ temperature: 2.01 })), 'temperature');
    refuses(() => validateChatRequest(chat({ temperature: -0.1 })), 'temperature');
    refuses(() => validateChatRequest(chat({ top_p: 0 })), 'top_p');
    refuses(() => validateChatRequest(chat({ top_p: 1.5 })), 'top_p');
    refuses(() => validateChatRequest(chat({ frequency_penalty: -2.5 })), 'frequency_penalty');
    refuses(() => validateChatRequest(chat({ repetition_penalty: 2.1 })), 'repetition_penalty');
    refuses(() => validateChatRequest(chat({ temperature: Number.NaN })), 'temperature');
    refuses(() => validateChatRequest(chat({ seed: 1.5 })), 'seed');
    refuses(() => validateChatRequest(chat({ max_completion_tokens: 0 })), 'max_completion_tokens');
  });

  it('checks messages, roles and model', () => {
    refuses(() => validateChatRequest(chat({ messages: [] })), 'messages');
    refuses(() => validateChatRequest(chat({ messages: [{ role: 'robot', content: 'x' }] })), 'messages');
    refuses(() => validateChatRequest(chat({ messages: [{ role: 'user', content: 5 }] })), 'messages');
    refuses(() => validateChatRequest(chat({ messages: [{ role: 'tool', content: 'x' }] })), 'messages');
    validateChatRequest(chat({ messages: [{ role: 'tool', content: 'x', tool_call_id: 'c1' }] }));
    refuses(() => validateChatRequest(chat({ model: ' ' })), 'model');
  });

  it('checks metadata (≤16 pairs, key ≤64, value ≤512), stop (≤4), reasoning, response_format and tools', () => {
    refuses(() => validateChatRequest(chat({ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) })), 'metadata');
    refuses(() => validateChatRequest(chat({ metadata: { ['k'.repeat(65)]: 'v' } })), 'metadata');
    refuses(() => validateChatRequest(chat({ metadata: { k: 'v'.repeat(513) } })), 'metadata');
    refuses(() => validateChatRequest(chat({ metadata: { k: 1 } })), 'metadata');
    refuses(() => validateChatRequest(chat({ stop: ['a', 'b', 'c', 'd', 'e'] })), 'stop');
    refuses(() => validateChatRequest(chat({ reasoning: { effort: 'max' } })), 'reasoning.effort');
    refuses(() => validateChatRequest(chat({ reasoning: { effort: 'low', budget_tokens: 10 } })), 'reasoning.budget_tokens');
    refuses(() => validateChatRequest(chat({ reasoning: { budget_tokens: 0 } })), 'reasoning.budget_tokens');
    refuses(() => validateChatRequest(chat({ response_format: { type: 'yaml' } })), 'response_format');
    refuses(() => validateChatRequest(chat({ response_format: { type: 'json_schema' } })), 'response_format');
    refuses(() => validateChatRequest(chat({ tools: [{ type: 'retrieval' }] })), 'tools');
  });

  it('checks volume names, paging and delete ids (D5, D10, D11)', () => {
    validateListRequest({ volume: 'docs-2024.v1_x' });
    validateListRequest({ volume: '{alice@example.com}', offset: 0, limit: 1000 });
    refuses(() => validateListRequest({ volume: '-starts-with-dash' }), 'volume');
    refuses(() => validateListRequest({ volume: 'a'.repeat(129) }), 'volume');
    refuses(() => validateListRequest({ volume: '{}' }), 'volume');
    refuses(() => validateListRequest({ volume: 'docs', limit: 0 }), 'limit');
    refuses(() => validateListRequest({ volume: 'docs', limit: 1001 }), 'limit');
    refuses(() => validateListRequest({ volume: 'docs', offset: -1 }), 'offset');
    refuses(() => validateDeleteRequest({ volume: 'docs', uuids: [] }), 'uuidz');
    refuses(() => validateDeleteRequest({ volume: 'docs', uuids: [''] }), 'uuidz');
  });

  it('checks uploads (D7)', () => {
    const file = { path: '/tmp/a.txt' };
    validateUploadRequest({ volume: 'docs', embedding: 'e', doChunking: 2, files: [file] });
    refuses(() => validateUploadRequest({ volume: 'docs', embedding: '', files: [file] }), 'embedding');
    refuses(() => validateUploadRequest({ volume: 'docs', embedding: 'e', doChunking: 5 as never, files: [file] }), 'do_chunking');
    refuses(() => validateUploadRequest({ volume: 'docs', embedding: 'e', files: [] }), 'file');
    refuses(() => validateUploadRequest({ volume: 'docs', embedding: 'e', files: [{ path: '/tmp/a', filename: ' ' }] }), 'file');
  });

  it('checks agent requests (D17, D18)', () => {
    validateAgentRequest(agent({ thread_id: null, files: [{ file_id: 'f', filename: 'a.txt', size: 3 }], context: { model: 'm', enable_thinking: true, volumes: ['docs', '{me}'] } }));
    refuses(() => validateAgentRequest(agent({ agent_id: '' })), 'agent_id');
    refuses(() => validateAgentRequest(agent({ query: '' })), 'query');
    refuses(() => validateAgentRequest(agent({ thread_id: '' })), 'thread_id');
    refuses(() => validateAgentRequest(agent({ context: undefined })), 'context.model');
    refuses(() => validateAgentRequest(agent({ context: { model: 'm', enable_thinking: 'yes' } })), 'context.enable_thinking');
    refuses(() => validateAgentRequest(agent({ context: { model: 'm', volumes: ['bad name'] } })), 'volume');
    refuses(() => validateAgentRequest(agent({ files: [{ file_id: 'f', filename: 'a', size: '3' }] })), 'files');
    validateAgentRequest({ agent_id: 'other-agent', query: 'q' });
  });
});
