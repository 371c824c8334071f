/**
 * What the outer test hands the runner (harness → runner, as JSON). Shared by the runner
 * and both launchers (code-server e2e and @vscode/test-electron).
 */
export interface RunnerConfig {
  /** Absolute path of mocha's package folder (the repo's node_modules/mocha). */
  mochaPath: string;
  /** Compiled suites (one CommonJS bundle per test/integration/**\/*.test.ts). */
  suites: string[];
  /** Where the runner writes its RunnerResults; written once, atomically. */
  resultsFile: string;
  /** Variables set on process.env before any suite loads (KSM_TEST_BASE_URL, KSM_TEST_API_KEY, …). */
  env: Record<string, string>;
  /** Per-test mocha timeout in ms. */
  timeoutMs: number;
}

export interface TestOutcome {
  /** The suite file (compiled bundle) the test came from. */
  file: string;
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs?: number;
  error?: string;
}

export interface RunnerResults {
  startedAt: string;
  finishedAt: string;
  vscodeVersion: string;
  /** Set when mocha itself could not start or a suite failed to load. */
  fatalError?: string;
  tests: TestOutcome[];
}

/** File name of the config inside the installed runner extension (code-server mode). */
export const CONFIG_FILE_NAME = 'e2e-config.json';
/** Environment variable naming the config file (@vscode/test-electron mode). */
export const CONFIG_ENV_VAR = 'KSM_INTEGRATION_CONFIG';
