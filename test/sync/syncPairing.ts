// A folder ↔ volume pairing for the sync engine tests, against the emulator over real HTTP:
// a fresh store per run (as the CLI and a reloaded editor read the manifest anew), the plan
// options, and one sync (plan, then apply) at a time.
import { applySync } from '../../src/sync/core/apply';
import { FileManifestStore } from '../../src/sync/core/manifest';
import { planSync, type PlanOptions } from '../../src/sync/core/plan';
import type { EmulatorFixture } from '../volumes/volumesEmulator';

export const SYNC_EMBEDDING = 'emu-embed';

export function syncPairing(fx: EmulatorFixture, pairing: { folder: string; volume: string; manifestPath: string; compactEveryRun: boolean }) {
  const { folder, volume, manifestPath, compactEveryRun } = pairing;
  const newStore = () => new FileManifestStore(manifestPath, fx.emulator.url, { compactEveryRun });
  const options = (more: Partial<PlanOptions> = {}): PlanOptions => ({
    folder,
    volume,
    service: fx.client,
    store: newStore(),
    rules: { excludeGlobs: [], maxFileSizeBytes: 0 },
    deleteRemoved: true,
    ...more,
  });
  const sync = async (more: Partial<PlanOptions> = {}) => {
    const opts = options(more);
    const store = opts.store as FileManifestStore;
    const plan = await planSync(opts);
    const summary = await applySync(plan, { service: fx.client, store, embedding: SYNC_EMBEDDING, doChunking: 0 });
    return { plan, summary, store };
  };
  return { newStore, options, sync, journalPath: `${manifestPath}.journal` };
}
