import assert from 'node:assert/strict';
import { basename, relative } from 'node:path';
import { integrationSuiteSources, INTEGRATION_DIR } from '../../integration-runner/build';
import type { RunnerResults } from '../../integration-runner/src/config';
import { runIntegrationSuites } from '../harness/integration';
import { scenarioResultsDir } from '../harness/paths';

/**
 * test/integration/**\/*.test.ts, run by the test-only runner extension inside code-server's
 * extension host. One outer test per suite file: it fails when the file's tests failed,
 * when none of them ran, or when the runner never reported.
 */
describe('Integration suites inside the real VS Code extension host', function () {
  this.timeout(15 * 60_000);
  const resultsDir = scenarioResultsDir('integration');
  const sources = integrationSuiteSources();
  let results: RunnerResults | undefined;

  before(async function () {
    this.timeout(20 * 60_000);
    results = await runIntegrationSuites(resultsDir);
  });

  it('finds integration suites to run', () => {
    assert.ok(sources.length > 0, `no *.test.ts under ${INTEGRATION_DIR}`);
  });

  for (const source of sources) {
    const name = relative(INTEGRATION_DIR, source);
    it(`${name} passes inside the extension host`, () => {
      assert.ok(results, 'the runner reported nothing');
      assert.equal(results.fatalError, undefined, `the runner could not run the suites: ${results.fatalError}`);
      const bundle = name.replace(/[\\/]/g, '__').replace(/\.ts$/, '.js');
      const own = results.tests.filter((t) => basename(t.file) === bundle);
      const failed = own.filter((t) => t.state === 'failed');
      assert.deepEqual(
        failed.map((t) => `${t.title}: ${t.error?.split('\n')[0]}`),
        [],
        `failing integration tests in ${name} (details in ${resultsDir}/results.json)`,
      );
      assert.ok(
        own.some((t) => t.state === 'passed'),
        `no test of ${name} ran inside the extension host`,
      );
    });
  }
});
