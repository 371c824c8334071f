// Where "Add Volume…" (the view's and the upload picker's) writes ksm.volumes.list.
import { strict as assert } from 'node:assert';
import { volumeListAddition } from '../../src/common/core/volumeTargets';

describe('volumes: where "Add Volume…" writes ksm.volumes.list', () => {
  it('adds to the list the view shows, so a user-level list is never hidden by a new workspace list', () => {
    assert.deepEqual(volumeListAddition({ globalValue: ['mine'] }, true, 'team'), { scope: 'global', list: ['mine', 'team'] });
    assert.deepEqual(volumeListAddition({ workspaceValue: ['shared'], globalValue: ['mine'] }, true, 'team'), { scope: 'workspace', list: ['shared', 'team'] });
    assert.deepEqual(volumeListAddition({}, true, 'team'), { scope: 'workspace', list: ['team'] });
    assert.deepEqual(volumeListAddition({}, false, 'team'), { scope: 'global', list: ['team'] });
    assert.deepEqual(volumeListAddition({ workspaceValue: ['shared'] }, false, 'team'), { scope: 'global', list: ['team'] }, 'no workspace open: the user list');
    assert.deepEqual(volumeListAddition({ globalValue: ['team', 'x'] }, false, 'team'), { scope: 'global', list: ['x', 'team'] }, 'never listed twice');
  });
});
