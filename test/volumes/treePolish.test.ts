// Issue 14's Volumes tree rules without VS Code: a chosen `na` vs a failed one (D24), the
// remembered upload modes, and exact match counts ("100 matches", "N+" only when more exist).
import { strict as assert } from 'node:assert';
import { NotFoundError } from '../../src/api/errors';
import type { KsmService } from '../../src/api/service';
import type { FileInfo } from '../../src/api/types';
import { decodeFileInfo } from '../../src/api/decode';
import { fileDescription, fileState, fileTooltipMarkdown } from '../../src/volumes/core/fileDisplay';
import { matchCountText, VolumeSearch } from '../../src/volumes/core/fileSearch';
import { ProcessingModes } from '../../src/volumes/core/processingModes';
import { VolumeListing } from '../../src/volumes/core/volumeListing';

const file = (over: Partial<FileInfo>): FileInfo => ({ uuid: 'u1', filename: 'a.pdf', status: 'na', filesize: 2048, date: '20261122010203', isdir: 0, ...over });

describe('volumes: a chosen "na" is not a failure (D24)', () => {
  it('shows Store only and Chunk only neutrally as "stored, not indexed"', () => {
    const stored = fileState(file({ statusDetail: 'stored as is (do_chunking=0)' }), 0);
    assert.equal(stored.kind, 'storedOnly');
    assert.equal(stored.warning, false);
    assert.equal(stored.icon, 'archive');
    assert.equal(fileDescription(file({}), 0), 'stored, not indexed · 2.0 KB');
    assert.equal(fileState(file({}), 2).text, 'chunked, not indexed');
    assert.equal(fileState(file({}), 2).warning, false);
  });

  it('shows a file sent to be indexed that ended na as "failed: reason", a warning, the reason whole in the tooltip', () => {
    const reason = 'no text could be extracted from the PDF (it holds only images) — scan it with OCR first';
    const failed = fileState(file({ statusDetail: reason }), 1);
    assert.equal(failed.kind, 'failed');
    assert.equal(failed.warning, true);
    assert.equal(failed.icon, 'warning');
    assert.ok(failed.text.startsWith('failed: no text could be extracted'));
    assert.ok(failed.text.length <= 'failed: '.length + 60, 'the row stays short');
    assert.match(fileTooltipMarkdown(file({ statusDetail: reason }), 'team', 'en-US', 1), /scan it with OCR first/);
    assert.equal(fileState(file({}), 1).text, 'failed: the service gave no reason');
  });

  it("drops a reason's final dots in one pass, however many dots a server sends before the end", () => {
    // `/\.+$/` read a run of dots again from each of them: a megabyte of dots before one letter
    // froze the extension host for hours while it drew the row.
    const dotted = `${'.'.repeat(1024 * 1024)}x`;
    assert.ok(fileState(file({ statusDetail: dotted }), 1).text.startsWith('failed: ....'));
    assert.equal(fileState(file({ statusDetail: 'no text...' }), 1).text, 'failed: no text');
    assert.equal(fileState(file({ statusDetail: `no text${'.'.repeat(1024 * 1024)}` }), 1).text, 'failed: no text');
  });

  it('takes the mode a server echoes (do_chunking) before the remembered one, and claims neither when none is known', () => {
    const echoed = decodeFileInfo({ uuid: 'x', filename: 'a', status: 'na', filesize: 1, date: '', isdir: 0, do_chunking: '0' });
    assert.equal(echoed?.doChunking, 0);
    assert.equal(fileState(echoed!).kind, 'storedOnly');
    assert.equal(decodeFileInfo({ uuid: 'x', filename: 'a', do_chunking: 7 })?.doChunking, undefined, 'not a mode');
    const unknown = fileState(file({}));
    assert.equal(unknown.kind, 'notIndexed');
    assert.equal(unknown.warning, false);
    assert.equal(fileState(file({ status: 'done' }), 0).text, 'done');
  });

  it('remembers the mode of each uploaded file, newest kept, entries it cannot read ignored (and kept as stored)', () => {
    let saved: unknown[] = [];
    const modes = new ProcessingModes([['a', 0], ['b', 9], 'junk', ['c', 1]], (entries) => (saved = entries), 3);
    assert.equal(modes.get('a'), 0);
    assert.equal(modes.get('b'), undefined);
    modes.remember(['d', 'e'], 2);
    assert.deepEqual(saved, [['b', 9], 'junk', ['c', 1], ['d', 2], ['e', 2]], 'the oldest forgotten beyond the bound');
    const again = new ProcessingModes(saved, () => undefined);
    assert.equal(again.get('e'), 2);
    assert.equal(new ProcessingModes('not a list', () => undefined).get('a'), undefined);
  });
});

describe('volumes: filter match counts are exact', () => {
  /** A service listing `names` in upload order (D10), in pages. */
  const serviceOf = (names: string[]): KsmService =>
    ({
      async *listAllFiles() {
        for (const [i, filename] of names.entries()) yield { uuid: `u${i}`, filename, status: 'done', filesize: 1, date: '', isdir: 0 } as FileInfo;
      },
    }) as unknown as KsmService;

  it('says "100 matches" for exactly 100, and "100+" only when a 101st exists', async () => {
    const exactly = new VolumeSearch(serviceOf([...Array.from({ length: 100 }, (_, i) => `match-${i}.md`), 'other.txt']), 'v', 'match');
    await exactly.findMore(100);
    assert.equal(exactly.countText, '100 matches');
    assert.equal(exactly.complete, true);

    const more = new VolumeSearch(serviceOf(Array.from({ length: 150 }, (_, i) => `match-${i}.md`)), 'v', 'match');
    await more.findMore(100);
    assert.equal(more.matches.length, 100);
    assert.equal(more.countText, '100+ matches');
    const next = await more.findMore(100);
    assert.equal(next.length, 50, 'the match read ahead is not lost');
    assert.equal(more.countText, '150 matches');
    assert.deepEqual(
      more.matches.map((m) => m.filename),
      Array.from({ length: 150 }, (_, i) => `match-${i}.md`),
    );
  });

  it('counts a volume nobody has uploaded to (404, D6) as searched to its end: 0 matches, not "so far"', async () => {
    const missing = {
      // eslint-disable-next-line require-yield
      async *listAllFiles() {
        throw new NotFoundError('volume "x" does not exist yet', { status: 404, param: 'volume' });
      },
    } as unknown as KsmService;
    const search = new VolumeSearch(missing, 'x', 'a');
    await search.findMore(100);
    assert.equal(search.complete, true);
    assert.equal(search.countText, '0 matches');
  });

  it('words counts for one, many, more and a stopped search', () => {
    assert.equal(matchCountText(1, false), '1 match');
    assert.equal(matchCountText(0, false), '0 matches');
    assert.equal(matchCountText(1, true), '1+ matches');
    assert.equal(matchCountText(3, false, true), '3 matches so far');
  });
});

describe('volumes: a listing that names a file twice', () => {
  // Each tree row's id is its file id: two rows with one id make VS Code refuse the whole volume.
  const listed = (uuids: string[]) => uuids.map((uuid) => file({ uuid, filename: `${uuid}.txt`, status: 'done' }));
  const serving = (entries: FileInfo[], asked: Array<[number, number]>) =>
    ({
      listFiles: async ({ offset = 0, limit = 10 }: { offset?: number; limit?: number }) => {
        asked.push([offset, limit]);
        return { total: entries.length, offset, files: entries.slice(offset, offset + limit) };
      },
    }) as unknown as KsmService;

  it('shows each file once, on the first load and on "load more", and pages on from what the service listed', async () => {
    const entries = listed(['a', 'a', 'b', 'c', 'c', 'c', 'd']);
    const asked: Array<[number, number]> = [];
    const listing = new VolumeListing(
      () => serving(entries, asked),
      'team',
      () => 3,
    );
    await listing.ensureLoaded();
    assert.deepEqual(
      listing.visibleFiles.map((f) => f.uuid),
      ['a', 'b'],
    );
    await listing.loadMore();
    await listing.loadMore();
    await listing.loadMore();
    const uuids = listing.visibleFiles.map((f) => f.uuid);
    assert.deepEqual(uuids, ['a', 'b', 'c', 'd']);
    await listing.reload();
    assert.deepEqual(
      listing.visibleFiles.map((f) => f.uuid),
      ['a', 'b', 'c', 'd'],
      'a reload lists every file once',
    );
  });
});
