// The sync status bar's words (issue 26, rough edge 4): "review" while the preview waits for
// Apply, never "syncing" then; after a reload, when the folder was last synced, not a bare "sync".
import { strict as assert } from 'node:assert';
import { describeSyncState, syncStatusText } from '../../src/sync/vscode/syncStatusText';

const time = (ms: number) => `t${ms}`;

describe('sync status bar text', () => {
  it('says "review" (not "syncing") while a preview waits for Apply, with the changes waiting', () => {
    assert.equal(syncStatusText([{ kind: 'review', count: 3 }], time).text, '$(eye) KSM: review sync (3)');
    assert.equal(
      syncStatusText(
        [
          { kind: 'review', count: 3 },
          { kind: 'pending', count: 2 },
        ],
        time,
      ).text,
      '$(eye) KSM: review sync (3)',
    );
    assert.equal(describeSyncState({ kind: 'review', count: 1 }), '1 change waiting in the preview for Apply');
    assert.equal(syncStatusText([{ kind: 'syncing' }, { kind: 'review', count: 3 }], time).text, '$(sync~spin) KSM: syncing', 'an apply under way is said first');
  });

  it('after a reload says when the folder was last synced, or that it never was', () => {
    assert.equal(
      syncStatusText(
        [
          { kind: 'idle', lastSynced: 5 },
          { kind: 'idle', lastSynced: 9 },
        ],
        time,
      ).text,
      '$(sync) KSM: last synced t9',
    );
    assert.equal(syncStatusText([{ kind: 'idle' }], time).text, '$(sync) KSM: not synced yet');
    assert.match(describeSyncState({ kind: 'idle', lastSynced: 9 }, time), /^last synced t9; not compared since this window opened$/);
  });

  it('says why a pending file waits: it changed again soon after watch sent it (WATCH_LIMITS.fileIntervalMs)', () => {
    assert.equal(
      describeSyncState({ kind: 'pending', count: 2, waiting: { files: 1, intervalMs: 60_000 } }),
      '2 pending; 1 changed again soon after being sent: watch sends a file at most once every 60 s',
    );
    assert.match(
      describeSyncState({ kind: 'pending', count: 3, waiting: { files: 2, intervalMs: 5_000 } }),
      /2 changed again .* at most once every 5 s$/,
      "the runner's own interval, not the default",
    );
    assert.equal(describeSyncState({ kind: 'pending', count: 2 }), '2 pending');
  });

  it('keeps the worst-first order: error, pending, in sync', () => {
    assert.deepEqual(
      syncStatusText(
        [
          { kind: 'error', message: 'x' },
          { kind: 'pending', count: 1 },
        ],
        time,
      ),
      { text: '$(error) KSM: sync error', error: true },
    );
    assert.equal(syncStatusText([{ kind: 'pending', count: 1 }, { kind: 'pending', count: 2 }, { kind: 'inSync' }], time).text, '$(cloud-upload) KSM: 3 pending');
    assert.equal(syncStatusText([{ kind: 'inSync' }, { kind: 'inSync' }], time).text, '$(check) KSM: in sync');
  });
});
