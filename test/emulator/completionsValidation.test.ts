// D12: every parameter and range enforced, each refusal a 400 naming the field.
import { assertErrorBody, call, useFreshEmulator } from './support';

const PATH = '/v3/chat/completions';
const base = { model: 'emu-chat', messages: [{ role: 'user', content: 'hello' }] };

const CASES: Array<[string, Record<string, unknown>, number, string]> = [
  ['no model', { model: undefined }, 400, 'model'],
  ['unknown model', { model: 'gpt-9' }, 404, 'model'],
  ['no messages', { messages: undefined }, 400, 'messages'],
  ['empty messages', { messages: [] }, 400, 'messages'],
  ['a bad role', { messages: [{ role: 'robot', content: 'x' }] }, 400, 'messages[0].role'],
  ['non-string content', { messages: [{ role: 'user', content: 5 }] }, 400, 'messages[0].content'],
  [
    'a tool message without tool_call_id',
    {
      messages: [
        { role: 'user', content: 'x' },
        { role: 'tool', content: 'r' },
      ],
    },
    400,
    'messages[1].tool_call_id',
  ],
  ['temperature 2.1', { temperature: 2.1 }, 400, 'temperature'],
  ['temperature -0.1', { temperature: -0.1 }, 400, 'temperature'],
  ['temperature as string', { temperature: '1' }, 400, 'temperature'],
  ['top_p 0', { top_p: 0 }, 400, 'top_p'],
  ['top_p 1.5', { top_p: 1.5 }, 400, 'top_p'],
  ['frequency_penalty 3', { frequency_penalty: 3 }, 400, 'frequency_penalty'],
  ['frequency_penalty -2.5', { frequency_penalty: -2.5 }, 400, 'frequency_penalty'],
  ['repetition_penalty 2.5', { repetition_penalty: 2.5 }, 400, 'repetition_penalty'],
  ['repetition_penalty -1', { repetition_penalty: -1 }, 400, 'repetition_penalty'],
  ['17 metadata pairs', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 400, 'metadata'],
  ['a metadata key over 64 chars', { metadata: { ['k'.repeat(65)]: 'v' } }, 400, 'metadata'],
  ['a metadata value over 512 chars', { metadata: { k: 'v'.repeat(513) } }, 400, 'metadata'],
  ['a non-string metadata value', { metadata: { k: 1 } }, 400, 'metadata'],
  ['5 stop strings', { stop: ['a', 'b', 'c', 'd', 'e'] }, 400, 'stop'],
  ['a numeric stop', { stop: 5 }, 400, 'stop'],
  ['a fractional seed', { seed: 1.5 }, 400, 'seed'],
  ['max_completion_tokens 0', { max_completion_tokens: 0 }, 400, 'max_completion_tokens'],
  ['max_completion_tokens 1.5', { max_completion_tokens: 1.5 }, 400, 'max_completion_tokens'],
  ['response_format xml', { response_format: { type: 'xml' } }, 400, 'response_format.type'],
  ['json_schema without a schema', { response_format: { type: 'json_schema' } }, 400, 'response_format.json_schema'],
  ['json_schema of an array', { response_format: { type: 'json_schema', json_schema: { type: 'array' } } }, 400, 'response_format.json_schema'],
  ['reasoning on a plain model', { reasoning: { effort: 'low' } }, 400, 'reasoning'],
  ['reasoning.effort extreme', { model: 'emu-reasoner', reasoning: { effort: 'extreme' } }, 400, 'reasoning.effort'],
  ['budget_tokens with effort', { model: 'emu-reasoner', reasoning: { effort: 'low', budget_tokens: 100 } }, 400, 'reasoning.budget_tokens'],
  ['budget_tokens 0', { model: 'emu-reasoner', reasoning: { budget_tokens: 0 } }, 400, 'reasoning.budget_tokens'],
  ['a tool of type retrieval', { tools: [{ type: 'retrieval' }] }, 400, 'tools[0].type'],
  ['a tool without a name', { tools: [{ type: 'function', function: {} }] }, 400, 'tools[0].function.name'],
  ['output_parser xml', { output_parser: 'xml' }, 400, 'output_parser'],
  ['a numeric user', { user: 7 }, 400, 'user'],
  ['stream as a string', { stream: 'yes' }, 400, 'stream'],
];

describe('emulator: chat completion validation (D12)', () => {
  const s = useFreshEmulator();
  for (const [label, patch, status, param] of CASES) {
    it(`${label} → ${status} param ${param}`, async () => {
      assertErrorBody(await call(s.emu, 'POST', PATH, { ...base, ...patch }), status, param);
      assertErrorBody(await call(s.emu, 'POST', PATH, { ...base, ...patch, stream: patch.stream ?? true }), status, param);
    });
  }

  it('accepts every parameter at its limits, nulls, and ignores unknown fields', async () => {
    const answer = await call(s.emu, 'POST', PATH, {
      ...base,
      model: 'emu-reasoner',
      temperature: 2,
      top_p: 1,
      frequency_penalty: -2,
      repetition_penalty: 0,
      seed: -1,
      metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`.padEnd(64, 'x'), 'v'.repeat(512)])),
      stop: ['a', 'b', 'c', 'd'],
      max_completion_tokens: null,
      output_parser: 'responses',
      user: 'u1',
      reasoning: { effort: null, budget_tokens: 50 },
      response_format: { type: 'text' },
      tools: [],
      something_new: true,
    });
    if (answer.status !== 200) throw new Error(answer.text);
  });
});
