import { stopSharedRun } from './run';

/**
 * Mocha root hooks (loaded with `require` in test/e2e/.mocharc.json): whatever the
 * scenarios started is stopped after the suite, and on Ctrl+C, so no code-server, emulator
 * or Chromium outlives a run.
 */
export const mochaHooks = {
  async afterAll(this: Mocha.Context) {
    this.timeout(60_000);
    await stopSharedRun();
  },
};

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopSharedRun().finally(() => process.exit(130));
  });
}
