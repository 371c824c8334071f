// The remembered lists and maps in VS Code's storage across versions (docs/architecture.md,
// "Stored state across versions"): a value a later version wrote (an entry of another shape, a
// field or element this version does not know, a processing mode it does not have) is written
// back unchanged by this version's next write; it was filtered out (or cut to the fields this
// version knows) and dropped. A value that is not a list or map at all is never written over.
// Fixtures: test/fixtures/global-state/ (README there).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UploadedContents, type UploadedContent } from '../../src/upload/core/uploadedContents';
import { ProcessingModes } from '../../src/volumes/core/processingModes';
import { rememberedChunking, volumeChoices, withChunking, withRecentVolume } from '../../src/upload/core/uploadMemory';
import { parseRecentModels, withRecentModel } from '../../src/chat/core/modelChoices';
import { withStrings } from '../../src/common/core/storedState';
import type { FileInfo } from '../../src/api/types';

const fixture = (key: string) => JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'global-state', `${key}.json`), 'utf8')) as unknown;
/** What storage gives back: a copy, as VS Code's Memento does. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const LATER_SHAPE = { version: 2, entries: ['x'] };

describe('stored state: remembered lists and maps a later version wrote', () => {
  it('uploaded contents: known entries are read, and a save keeps the other entries and the fields this version does not know', () => {
    const stored = fixture('ksm.upload.uploadedContents') as unknown[];
    let saved: unknown;
    const contents = new UploadedContents(copy(stored), (entries) => (saved = copy(entries)));
    const clash = [{ uuid: 'u-2', filesize: 20 }] as FileInfo[];
    assert.ok(contents.knowsAny('docs', clash));
    assert.equal(contents.identical('docs', clash, 'b'.repeat(64))?.uuid, 'u-2');
    const added: UploadedContent = { uuid: 'u-9', volume: 'docs', sha256: 'c'.repeat(64), size: 3 };
    contents.remember([added]);
    assert.deepEqual(saved, [stored[2], stored[0], stored[1], added], 'the unread entry first (older), the others as stored, the new one last');
  });

  it('uploaded contents: a value that is not a list is never written over (what is uploaded is known for the session)', () => {
    let writes = 0;
    const contents = new UploadedContents(copy(LATER_SHAPE), () => writes++);
    contents.remember([{ uuid: 'u-9', volume: 'docs', sha256: 'c'.repeat(64), size: 3 }]);
    assert.equal(writes, 0);
    assert.ok(contents.knowsAny('docs', [{ uuid: 'u-9', filesize: 3 }] as FileInfo[]));
  });

  it('processing modes: an unknown mode or entry shape and extra elements are written back unchanged', () => {
    const stored = fixture('ksm.volumes.processingModes') as unknown[];
    let saved: unknown;
    const modes = new ProcessingModes(copy(stored), (entries) => (saved = copy(entries)));
    assert.equal(modes.get('f-1'), 1);
    assert.equal(modes.get('f-2'), undefined, 'a mode this version does not have is not guessed');
    assert.equal(modes.get('f-3'), 2);
    modes.remember(['f-5'], 0);
    assert.deepEqual(saved, [stored[1], stored[3], stored[0], stored[2], ['f-5', 0]]);
    let writes = 0;
    new ProcessingModes(copy(LATER_SHAPE), () => writes++).remember(['f-5'], 0);
    assert.equal(writes, 0, 'a value that is not a list is left as it is');
  });

  it('recent upload volumes: entries that are not names stay after the names; a value that is not a list is left', () => {
    const stored = fixture('ksm.upload.recentVolumes') as unknown[];
    assert.deepEqual(
      volumeChoices(undefined, ['docs', 'team', 'notes'], copy(stored)).map((c) => [c.volume, c.recent]),
      [
        ['docs', true],
        ['notes', true],
        ['team', false],
      ],
    );
    assert.deepEqual(withRecentVolume(copy(stored), 'notes'), ['notes', 'docs', stored[1]]);
    assert.equal(withRecentVolume(copy(LATER_SHAPE), 'notes'), undefined);
  });

  it('processing per volume: a choice this version does not know is kept for its volume; a value that is not a map is left', () => {
    const stored = fixture('ksm.upload.doChunkingByVolume') as Record<string, unknown>;
    assert.equal(rememberedChunking(copy(stored), 'team'), undefined, 'an unknown choice: asked');
    assert.deepEqual(withChunking(copy(stored), 'docs', 0), { ...stored, docs: 0 });
    assert.deepEqual(withChunking(copy(stored), 'other', 2), { ...stored, other: 2 });
    assert.equal(withChunking(['a list'], 'docs', 0), undefined);
  });

  it('recent chat models: entries that are not model ids stay after the ids; a value that is not a list is left', () => {
    const stored = fixture('ksm.chat.recentModels') as unknown[];
    assert.deepEqual(parseRecentModels(copy(stored)), ['model-a', 'model-c']);
    assert.deepEqual(withRecentModel(copy(stored), 'model-c'), ['model-c', 'model-a', stored[1]]);
    assert.equal(withRecentModel(copy(LATER_SHAPE), 'model-c'), undefined);
  });

  it('approved sync pairings: an approval keeps every stored entry; a value that is not a list is left', () => {
    const stored = fixture('ksm.sync.approvedPairings') as unknown[];
    const fingerprint = '["notes","team",true,false]';
    assert.deepEqual(withStrings(copy(stored), [fingerprint, stored[0] as string]), [...stored, fingerprint]);
    assert.deepEqual(withStrings(undefined, [fingerprint]), [fingerprint]);
    assert.equal(withStrings(copy(LATER_SHAPE), [fingerprint]), undefined);
  });
});
