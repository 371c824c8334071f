// What the test-only runner (test/integration-runner) hands the suites that run inside the
// extension host. Not a test file itself (no `.test.ts`), so the runner does not load it.
import type * as vscode from 'vscode';

/** The runner extension's context: a real SecretStorage and globalState of this VS Code. */
export function runnerContext(): vscode.ExtensionContext {
  const host = (globalThis as { ksmIntegrationHost?: { context?: vscode.ExtensionContext } }).ksmIntegrationHost;
  if (!host?.context) throw new Error('not running inside the integration runner extension (no ksmIntegrationHost.context)');
  return host.context;
}

/** An environment variable the launcher must set (KSM_TEST_BASE_URL, KSM_TEST_API_KEY, KSM_TEST_USER_ID, KSM_TEST_WORKSPACE). */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the integration suites through the runner (npm test or npm run test:desktop)`);
  return value;
}
