// The volumes a user sees, one source for the Volumes tree and the upload target picker:
// which volumes, in what order, how they are labelled, and where "Add Volume…" writes
// ksm.volumes.list.
import { strict as assert } from 'node:assert';
import { PERSONAL_VOLUME_LABEL, shownVolumes, volumeCodicon, volumeLabel, volumeListAddition, volumeListRemovals } from '../../src/common/core/volumeTargets';
import { volumeChoices } from '../../src/upload/core/uploadMemory';

describe('common: the volumes shown (tree and upload picker)', () => {
  it('lists My files first, then the named volumes in settings order, never the personal one twice', () => {
    assert.deepEqual(shownVolumes('{me}', ['team', '{me}', 'docs']), [
      { volume: '{me}', personal: true },
      { volume: 'team', personal: false },
      { volume: 'docs', personal: false },
    ]);
    assert.deepEqual(shownVolumes(undefined, ['team']), [{ volume: 'team', personal: false }], 'no user id: no My files');
  });

  it('labels the personal volume "My files" with the account icon, named ones by name with the database icon', () => {
    assert.equal(PERSONAL_VOLUME_LABEL, 'My files');
    assert.equal(volumeLabel({ volume: '{me}', personal: true }), 'My files');
    assert.equal(volumeLabel({ volume: 'team', personal: false }), 'team');
    assert.equal(volumeCodicon({ volume: '{me}', personal: true }), 'account');
    assert.equal(volumeCodicon({ volume: 'team', personal: false }), 'database');
  });

  it('the upload picker offers exactly the shown volumes (recent ones moved to the front)', () => {
    const shown = shownVolumes('{me}', ['a', 'b', 'c']);
    const offered = volumeChoices('{me}', ['a', 'b', 'c'], ['c']);
    assert.deepEqual(
      offered.map(({ volume, personal }) => ({ volume, personal })),
      [shown[3], shown[0], shown[1], shown[2]],
    );
    assert.deepEqual(
      offered.map((c) => c.recent),
      [true, false, false, false],
    );
  });
});

describe('common: where "Add Volume…" (the view\'s and the upload picker\'s) writes ksm.volumes.list', () => {
  it('adds to the list the view shows, so a user-level list is never hidden by a new workspace list', () => {
    assert.deepEqual(volumeListAddition({ globalValue: ['mine'] }, true, 'team'), { scope: 'global', list: ['mine', 'team'] });
    assert.deepEqual(volumeListAddition({ workspaceValue: ['shared'], globalValue: ['mine'] }, true, 'team'), { scope: 'workspace', list: ['shared', 'team'] });
    assert.deepEqual(volumeListAddition({}, true, 'team'), { scope: 'global', list: ['team'] }, 'no list anywhere: the user settings, never a new .vscode/settings.json');
    assert.deepEqual(volumeListAddition({}, false, 'team'), { scope: 'global', list: ['team'] });
    assert.deepEqual(volumeListAddition({ workspaceValue: ['shared'] }, false, 'team'), { scope: 'global', list: ['team'] }, 'no workspace open: the user list');
    assert.deepEqual(volumeListAddition({ globalValue: ['team', 'x'] }, false, 'team'), { scope: 'global', list: ['x', 'team'] }, 'never listed twice');
  });
});

describe('common: where Remove Volume writes ksm.volumes.list', () => {
  it('takes the name out of every list that has it; in Restricted Mode never out of the workspace’s (its .vscode/settings.json stays as cloned)', () => {
    const values = { workspaceFolderValue: ['team', 'a'], workspaceValue: ['team', 'b'], globalValue: ['mine', 'team'] };
    assert.deepEqual(volumeListRemovals(values, true, 'team'), [
      { scope: 'workspaceFolder', list: ['a'] },
      { scope: 'workspace', list: ['b'] },
      { scope: 'global', list: ['mine'] },
    ]);
    assert.deepEqual(volumeListRemovals(values, false, 'team'), [{ scope: 'global', list: ['mine'] }]);
    assert.deepEqual(volumeListRemovals({ workspaceValue: ['team'] }, false, 'team'), [], 'nothing the user could see to remove');
    assert.deepEqual(volumeListRemovals({ globalValue: ['mine'], workspaceValue: 'team' }, true, 'team'), [], 'a list that is not a list is left alone');
  });
});
