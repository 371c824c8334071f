import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const RESULTS_ROOT = join(REPO_ROOT, 'test-results', 'e2e');
export const CACHE_ROOT = process.env.KSM_E2E_CACHE ?? join(homedir(), '.cache', 'ksm-assistant-e2e');

/** test-results/e2e/<scenario>/, created on demand; screenshots and logs of one scenario. */
export function scenarioResultsDir(scenario: string): string {
  const dir = join(RESULTS_ROOT, scenario.replace(/[^A-Za-z0-9._-]+/g, '-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}
