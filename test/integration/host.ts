// What the test-only runner (test/integration-runner) hands the suites that run inside the
// extension host. Not a test file itself (no `.test.ts`), so the runner does not load it.
import type * as vscode from 'vscode';
import type { ExtensionServices } from '../../src/common/vscode/services';
import { createReplacementTracker } from '../../src/upload/vscode/replacements';
import { UploadFlow } from '../../src/upload/vscode/uploadFlow';
import { ProcessingModes } from '../../src/volumes/core/processingModes';
import { createVolumesApi, type VolumesFeature } from '../../src/volumes/volumesFeature';
import type { VolumesNode } from '../../src/volumes/vscode/volumeNodes';
import type { VolumesTreeProvider } from '../../src/volumes/vscode/volumesTree';

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

/** No view to reveal files in (the extension's own Volumes view belongs to the extension under test). */
const NO_VIEW: Pick<vscode.TreeView<VolumesNode>, 'reveal'> = { reveal: async () => undefined };

/** The Volumes API over `tree` as the extension builds it; processing modes are kept in memory. */
export function volumesApiFor(tree: VolumesTreeProvider, view: Pick<vscode.TreeView<VolumesNode>, 'reveal'> = NO_VIEW): VolumesFeature {
  let modes: ProcessingModes | undefined;
  return createVolumesApi(tree, view, () => (modes ??= new ProcessingModes(undefined, () => undefined)));
}

/** The upload flow as the extension builds it, except that it ends silently: the test reads the summary it returns. */
export function silentUploadFlow(services: ExtensionServices, volumes: VolumesFeature): UploadFlow {
  return new UploadFlow({
    services,
    volumes,
    replacements: createReplacementTracker(services, volumes),
    notices: { nothingToUpload: () => undefined, summary: () => undefined },
  });
}
