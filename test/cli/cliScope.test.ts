// One scope for the command line and `ksm mcp`: both build the volumes, the agent and its
// model a retrieval may use from the same environment through cliScope (src/cli/retrievalCommands.ts).
// The MCP server differs only in how it names its settings and in leaving a missing model
// to the tool that needs one (list_files works without it).
import { strict as assert } from 'node:assert';
import { ConfigurationError } from '../../src/api/errors';
import { mcpDeps } from '../../src/cli/mcpCommand';
import { environmentFrom } from '../../src/cli/environment';
import { cliScope } from '../../src/cli/retrievalCommands';

const ENV = { KSM_BASE_URL: 'http://127.0.0.1:9', KSM_API_KEY: 'sk-test-key-0123456789', KSM_USER_ID: ' dev ', KSM_AGENT_ID: 'team-agent', KSM_MODEL: 'env-model' };
const signal = new AbortController().signal;
const withoutService = ({ service: _service, ...rest }: ReturnType<typeof cliScope>) => rest;

describe('cli: one retrieval scope for the commands and ksm mcp (cliScope)', () => {
  it('ksm mcp takes its scope from cliScope: the same volumes, user, agent and model rules', () => {
    for (const [env, model] of [
      [ENV, undefined],
      [ENV, ' flag-model '],
      [{ ...ENV, KSM_AGENT_ID: '  ', KSM_USER_ID: undefined }, undefined],
    ] as const) {
      const fromMcp = mcpDeps({ volume: ['team-docs', 'it.handbook'], model, port: 0 }, env).scope(signal);
      const fromCli = cliScope(environmentFrom(env), ['team-docs', 'it.handbook'], model, signal, { processEnv: env, modelOptional: true, names: fromMcp.names });
      assert.deepEqual(withoutService(fromMcp), withoutService(fromCli));
    }
    const scope = mcpDeps({ volume: [], port: 0 }, ENV).scope(signal);
    assert.equal(scope.userId, 'dev');
    assert.equal(scope.agentId, 'team-agent');
    assert.equal(scope.agentModel, 'env-model');
    assert.match(scope.names?.agentModel ?? '', /ksm mcp --model/, 'the server names its own flags');
  });

  it('a command stops without a model; the server leaves it to the tool that needs one', () => {
    const env = { ...ENV, KSM_MODEL: '' };
    assert.throws(() => cliScope(environmentFrom(env), [], undefined, signal, { processEnv: env }), ConfigurationError);
    assert.equal(mcpDeps({ volume: [], port: 0 }, env).scope(signal).agentModel, '');
  });
});
