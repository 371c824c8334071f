// One table of chat parameters, three judges: the webview's Parameters form, the host's
// check of webview messages and the client's check of the wire request. All three read
// src/api/chatParameterLimits.ts; this proves they accept exactly the same values, so a value
// the form lets through is never dropped by the host or refused by the client (and the other
// way round). Before, the form refused effort + budget, the host took both and the request
// builder silently sent only the effort.
import { strict as assert } from 'node:assert';
import { InvalidRequestError } from '../../src/api/errors';
import { EFFORT_AND_BUDGET_PROBLEM, temperatureProblem, TOKEN_COUNT, tokenCountProblem, topPProblem, wireFields } from '../../src/api/chatParameterLimits';
import { AnswerFailedError, samplingOptions } from '../../src/nativeChat/core/modelResponse';
import type { ChatCompletionRequest } from '../../src/api/types';
import { CASES } from './chatParameterCases';
import { validateChatRequest } from '../../src/api/validate';
import { parseWebviewMessage } from '../../src/chat/panel/messageValidation';
import type { ChatParameters } from '../../src/chat/protocol';
import { parametersToForm, parseParameters as parseForm } from '../../src/webview/parameterRules';

/** VS Code's Chat: the option names a caller gives a KSM model (modelOptions), for the parameters it takes. */
const VSCODE_OPTION: Record<string, string> = {
  temperature: 'temperature',
  topP: 'top_p',
  maxTokens: 'max_tokens',
  stop: 'stop',
  seed: 'seed',
  frequencyPenalty: 'frequency_penalty',
  repetitionPenalty: 'repetition_penalty',
};

/** The form, as the user would type the values (the popover shows reasoning fields for a reasoning model). */
function formAllows(parameters: Record<string, unknown>): boolean {
  const result = parseForm(parametersToForm(parameters as ChatParameters), true);
  if (result.ok) assert.deepEqual(result.parameters, { responseFormat: 'text', ...parameters }, 'the form posts what was typed');
  return result.ok;
}

/** The host, as the webview would post them. */
function hostAllows(parameters: Record<string, unknown>): boolean {
  const parsed = parseWebviewMessage({ type: 'setParameters', parameters });
  if (parsed) assert.deepEqual(parsed, { type: 'setParameters', parameters }, 'the host keeps every value it accepts');
  return parsed !== undefined;
}

/** The client, as the wire request would carry them if nothing on the way dropped a value. */
function clientAllows(parameters: Record<string, unknown>): boolean {
  const p = parameters as Record<string, never>;
  // The fields the table maps as they are (what the request builder sends), plus the two it shapes.
  const request: Record<string, unknown> = { model: 'emu-reasoner', messages: [{ role: 'user', content: 'hi' }], ...wireFields(parameters) };
  if (p.responseFormat !== undefined) request.response_format = { type: p.responseFormat };
  if (p.outputFormat !== undefined) request.output_parser = p.outputFormat === 'responses' ? 'responses' : p.outputFormat === 'chat' ? null : p.outputFormat;
  if (p.reasoningEffort !== undefined || p.reasoningBudget !== undefined) {
    request.reasoning = { effort: p.reasoningEffort ?? null, ...(p.reasoningBudget !== undefined ? { budget_tokens: p.reasoningBudget } : {}) };
  }
  try {
    validateChatRequest(request as unknown as ChatCompletionRequest);
    return true;
  } catch (error) {
    assert.ok(error instanceof InvalidRequestError, String(error));
    return false;
  }
}

/** VS Code's Chat, as a caller's modelOptions; undefined when the set has a parameter VS Code's Chat does not take. */
function vscodeChatAllows(parameters: Record<string, unknown>): boolean | undefined {
  if (Object.keys(parameters).some((name) => !VSCODE_OPTION[name])) return undefined;
  const options = Object.fromEntries(Object.entries(parameters).map(([name, value]) => [VSCODE_OPTION[name], value]));
  try {
    assert.deepEqual(samplingOptions(options, 'en'), wireFields(parameters), "VS Code's Chat sends what it accepts");
    return true;
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    assert.ok(error instanceof AnswerFailedError && /^The model option is not valid: /.test(error.message), String(error));
    return false;
  }
}

describe('chat parameter limits: one source, the same checks in every layer', () => {
  for (const [name, parameters, allowed] of CASES) {
    it(`${allowed ? 'accepts' : 'refuses'} ${name} in the form, the host, the client and VS Code's Chat alike`, () => {
      const vscodeChat = vscodeChatAllows(parameters);
      assert.deepEqual(
        { form: formAllows(parameters), host: hostAllows(parameters), client: clientAllows(parameters), ...(vscodeChat === undefined ? {} : { vscodeChat }) },
        { form: allowed, host: allowed, client: allowed, ...(vscodeChat === undefined ? {} : { vscodeChat: allowed }) },
      );
    });
  }

  it("refuses an empty stop sequence in the host, the client and VS Code's Chat (the form has no way to type one: empty lines are not sequences)", () => {
    assert.deepEqual([hostAllows({ stop: [''] }), clientAllows({ stop: [''] }), vscodeChatAllows({ stop: [''] })], [false, false, false]);
    assert.deepEqual(parseForm(parametersToForm({ stop: ['a', ''] }), false), { ok: true, parameters: { responseFormat: 'text', stop: ['a'] } });
  });

  it('says the same thing in the form and in the client, each naming the field its way', () => {
    const form = (parameters: ChatParameters) => {
      const result = parseForm(parametersToForm(parameters), true);
      assert.equal(result.ok, false);
      return result.ok ? {} : result.errors;
    };
    const clientMessage = (request: Record<string, unknown>) => {
      try {
        validateChatRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...request } as ChatCompletionRequest);
      } catch (error) {
        return (error as Error).message;
      }
      assert.fail('the client accepted it');
    };
    assert.equal(form({ temperature: 2.5 }).temperature, `Temperature ${temperatureProblem(2.5)}`);
    assert.equal(clientMessage({ temperature: 2.5 }), `Invalid request: temperature ${temperatureProblem(2.5)}`);
    assert.equal(form({ topP: 0 }).topP, `Top P ${topPProblem(0)}`);
    assert.equal(clientMessage({ top_p: 0 }), `Invalid request: top_p ${topPProblem(0)}`);
    assert.equal(form({ maxTokens: TOKEN_COUNT.max + 1 }).maxTokens, `Max tokens ${tokenCountProblem(TOKEN_COUNT.max + 1)}`);
    assert.equal(form({ reasoningEffort: 'low', reasoningBudget: 10 }).reasoningBudget, EFFORT_AND_BUDGET_PROBLEM);
    assert.equal(clientMessage({ reasoning: { effort: 'low', budget_tokens: 10 } }), `Invalid request: ${EFFORT_AND_BUDGET_PROBLEM}`);
  });
});
