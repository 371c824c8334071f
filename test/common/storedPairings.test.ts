// Saving or removing one sync pairing writes the others back exactly as stored: they were
// written back as this version reads them, so a field a later version added (or an entry it
// cannot read at all) vanished from .vscode/settings.json, a file teams share, at the next
// Add or Remove of any pairing. Fixture: test/fixtures/settings/ksm.sync.folders.json.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS, storedPairingsWith } from '../../src/common/core/settingsTable';

const stored = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'settings', 'ksm.sync.folders.json'), 'utf8')) as unknown[];

describe('settings: stored sync pairings across versions', () => {
  it('reads every pairing of the first version’s shape and the readable part of a later one', () => {
    assert.deepEqual(SETTINGS.syncFolders.read(stored), [
      { folder: 'docs', volume: 'handbook', deleteRemoved: true, watch: false },
      { folder: '.', volume: 'everything', deleteRemoved: false, watch: false },
      { folder: 'notes', volume: 'team', deleteRemoved: false, watch: true },
    ]);
  });

  it('removing one pairing keeps every other entry as stored', () => {
    assert.deepEqual(storedPairingsWith(stored, { folder: 'docs', volume: 'handbook' }), [stored[1], stored[2], stored[3]]);
  });

  it('saving a pairing replaces its entry, keeping the fields this version does not know, and the others as stored', () => {
    const next = storedPairingsWith(stored, { folder: 'notes', volume: 'team' }, { folder: 'notes', volume: 'team', deleteRemoved: true, watch: false });
    assert.deepEqual(next, [stored[0], stored[1], stored[3], { folder: 'notes', volume: 'team', deleteRemoved: true, watch: false, exclude: ['drafts/**'] }]);
    const added = storedPairingsWith(stored, { folder: 'new', volume: 'v' }, { folder: 'new', volume: 'v', deleteRemoved: false, watch: false });
    assert.deepEqual(added, [...stored, { folder: 'new', volume: 'v', deleteRemoved: false, watch: false }]);
  });
});
