// Pending replacements in globalState across versions: an entry this version does not
// understand (a later version's shape) is kept as it is when the tracker writes the list
// back, reported once; it was filtered out and dropped at the first add or settle. A stored
// value that is not a list is left unchanged. Fixture: test/fixtures/global-state/.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KsmService } from '../../src/api/service';
import type { FileInfo } from '../../src/api/types';
import { ReplacementTracker, type ReplacementStorage } from '../../src/upload/core/pendingReplacements';

const FIXTURE = join(__dirname, '..', 'fixtures', 'global-state', 'ksm.upload.pendingReplacements.json');

function storage(initial: unknown): ReplacementStorage & { value: () => unknown } {
  let saved = JSON.stringify(initial);
  return { get: () => JSON.parse(saved) as unknown, set: async (next) => void (saved = JSON.stringify(next)), value: () => JSON.parse(saved) as unknown };
}

function service(files: Array<Pick<FileInfo, 'uuid' | 'status'>>, deleted: string[]): KsmService {
  return {
    async *listAllFiles() {
      for (const f of files) yield f as FileInfo;
    },
    async deleteFiles({ uuids }: { uuids: string[] }) {
      deleted.push(...uuids);
    },
  } as unknown as KsmService;
}

describe('upload: pending replacements stored by other versions', () => {
  it('settles the entries it understands and keeps the others unchanged, reported once', async () => {
    const stored = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];
    const store = storage(stored);
    const deleted: string[] = [];
    const errors: string[] = [];
    const tracker = new ReplacementTracker({
      service: () =>
        service(
          [
            { uuid: 'new-1', status: 'done' },
            { uuid: 'old-1', status: 'done' },
            { uuid: 'new-3', status: 'processing' },
          ] as FileInfo[],
          deleted,
        ),
      storage: store,
      onSettled: () => undefined,
      onError: (error) => errors.push((error as Error).message),
    });
    assert.deepEqual(
      tracker.pending.map((p) => p.uuid),
      ['new-1'],
    );
    tracker.dispose(); // no watch loop: the test settles once itself
    await tracker.add([{ volume: 'docs', uuid: 'new-3', filename: 'third.md', replaces: ['old-3'] }]);
    const settled = await tracker.settleOnce();
    assert.deepEqual(
      settled.map((s) => s.outcome),
      ['replaced'],
    );
    assert.deepEqual(deleted, ['old-1']);
    assert.deepEqual(store.value(), [{ volume: 'docs', uuid: 'new-3', filename: 'third.md', replaces: ['old-3'] }, stored[1]]);
    assert.equal(errors.length, 1, 'reported once');
    assert.match(errors[0], /1 remembered replacements .* kept unchanged/);
  });

  it('a stored value that is not a list is left unchanged, reported', async () => {
    const later = { version: 2, entries: [] };
    const store = storage(later);
    const errors: string[] = [];
    const tracker = new ReplacementTracker({ service: () => service([], []), storage: store, onSettled: () => undefined, onError: (e) => errors.push((e as Error).message) });
    assert.deepEqual(tracker.pending, []);
    await tracker.add([{ volume: 'docs', uuid: 'n', filename: 'f.md', replaces: ['o'] }]);
    tracker.dispose();
    assert.deepEqual(store.value(), later);
    assert.equal(errors.length, 1);
  });
});
