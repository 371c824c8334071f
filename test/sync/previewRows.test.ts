// The sync preview's file rows (a quick pick, which draws `$(…)` as an icon): a remote file's
// name, a repository's path or a sync record entry is shown as text, escaped and bounded,
// so it cannot pass for the preview's own rows (Apply, Cancel) nor hide what a sync deletes.
import { strict as assert } from 'node:assert';
import type { FileInfo } from '../../src/api/types';
import type { SyncPlan } from '../../src/sync/core/plan';
import { previewFileRows } from '../../src/sync/core/previewRows';

const remote = (filename: string): FileInfo => ({ uuid: 'u', filename, status: 'done', filesize: 1, date: '', isdir: 0 });

const plan = (over: Partial<SyncPlan>): SyncPlan =>
  ({
    folder: '/w/docs',
    volume: 'team',
    manifest: { state: 'ok', location: '' },
    uploads: [],
    deletes: [],
    keptRemote: [],
    untracked: [],
    ignoredClaims: [],
    conflicts: [],
    skipped: [],
    ...over,
  }) as unknown as SyncPlan;

describe('sync: the preview shows names as text', () => {
  it('writes $(…) in a remote name, a path or a record entry as text, escapes controls and bidi, and bounds each name', () => {
    const rows = previewFileRows(
      plan({
        untracked: [remote('$(check) Apply'), remote('x'.repeat(100_000))],
        deletes: [{ uuid: 'd', remoteName: 'notes\u202Etxt.exe\n$(close) Cancel', reason: 'removed' }],
        uploads: [{ rel: '$(trash) a.md', path: '/w/docs/$(trash) a.md', size: 1, mtimeMs: 0, sha256: '', remoteName: 'a.md', renamedFrom: '$(x)' } as SyncPlan['uploads'][number]],
        ignoredClaims: ['$(pass) fine'],
      }),
      false,
    );
    const text = rows.map((r) => [r.label, r.description ?? '', r.detail ?? ''].join(' ')).join(' | ');
    // Our own icon leads each label; every other `$(` is escaped.
    for (const row of rows) assert.equal((row.label.replace(/^\$\([a-z-]+\) /, '') + (row.description ?? '') + (row.detail ?? '')).match(/(?<!\\)\$\(/), null, row.label);
    assert.ok(!/[\n\u202e]/.test(text), text);
    assert.ok(
      rows.every((r) => r.label.length < 300),
      'a 100 KB name is cut',
    );
    assert.ok(text.includes('$(trash) notes\\u202etxt.exe\\n\\$(close) Cancel'), text);
  });
});
