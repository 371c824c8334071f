// Sync records written by earlier versions load in this one without loss (their journal
// replayed), and one a newer version wrote is refused and left byte for byte as it was: a
// run treating it as missing wrote this version's manifest over it (and removed its
// journal). The fixtures under test/fixtures/sync-manifest/ were written by the old code
// itself (see its README.md).
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adoptEarlierRecord } from '../../src/sync/core/folderManifest';
import { NewerSyncRecordError } from '../../src/sync/core/journal';
import { FileManifestStore, forgetRememberedManifests } from '../../src/sync/core/manifest';

const FIXTURES = join(__dirname, '..', 'fixtures', 'sync-manifest');
const SERVICE = 'http://127.0.0.1:8964';
const sha = (c: string) => c.repeat(64);

describe('sync: records written by earlier and later versions', () => {
  let dir: string;
  const place = (name: string, as = name) => {
    copyFileSync(join(FIXTURES, name), join(dir, as));
    return join(dir, as);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-manifest-compat-'));
    forgetRememberedManifests();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a version 1 manifest (8752afe) loads every entry; its pending deletion is kept with its remote name', async () => {
    const at = place('v1-8752afe.json');
    const loaded = await new FileManifestStore(at, SERVICE).load('docs');
    assert.equal(loaded.state, 'ok');
    if (loaded.state !== 'ok') return;
    assert.deepEqual(
      { ...loaded.manifest.files },
      {
        'readme.md': { sha256: sha('a'), size: 12, mtimeMs: 1763776800000, uuid: 'u-1', remoteName: 'readme.md' },
        'notes/plan.txt': { sha256: sha('b'), size: 5, mtimeMs: 1763776800500, uuid: 'u-2', remoteName: 'notes__plan.txt' },
      },
    );
    assert.deepEqual(loaded.manifest.pendingDeletes, [{ uuid: 'u-0', rel: undefined, remoteName: 'old.md' }]);
  });

  it('a version 2 manifest with the journal of a run that stopped (dabef81) loads with the journal replayed, and survives a save', async () => {
    const at = place('v2-dabef81.json');
    place('v2-dabef81.json.journal');
    const store = new FileManifestStore(at, SERVICE);
    const loaded = await store.load('docs');
    assert.equal(loaded.state, 'ok', JSON.stringify(loaded));
    if (loaded.state !== 'ok') return;
    const expected = {
      files: {
        'readme.md': { sha256: sha('a'), size: 12, mtimeMs: 1763776800000, uuid: 'u-1', remoteName: 'readme.md' },
        'notes/plan.txt': { sha256: sha('c'), size: 6, mtimeMs: 1763776900000, uuid: 'u-3', remoteName: 'notes__plan.txt' },
      },
      intents: { 'new.md': { sha256: sha('d'), size: 7 } },
      pendingDeletes: [
        { uuid: 'u-0', rel: 'readme.md', remoteName: 'readme.md' },
        { uuid: 'u-2', rel: 'notes/plan.txt', remoteName: 'notes__plan.txt' },
      ],
    };
    const shape = (m: typeof loaded.manifest) => ({ files: { ...m.files }, intents: { ...m.intents }, pendingDeletes: m.pendingDeletes.map((p) => ({ ...p })) });
    assert.deepEqual(shape(loaded.manifest), expected);
    assert.equal(loaded.manifest.service, SERVICE);

    await store.save(loaded.manifest);
    forgetRememberedManifests();
    const again = await new FileManifestStore(at, SERVICE).load('docs');
    assert.equal(again.state, 'ok');
    if (again.state === 'ok') assert.deepEqual(shape(again.manifest), expected);
  });

  it('a manifest a newer version wrote is refused with what to do and left unchanged', async () => {
    const at = place('newer-v3.json');
    const bytes = readFileSync(at, 'utf8');
    await assert.rejects(
      new FileManifestStore(at, SERVICE).load('docs'),
      (error: Error) => error instanceof NewerSyncRecordError && /newer version.*version 3.*update the extension or ksm/.test(error.message),
    );
    assert.equal(readFileSync(at, 'utf8'), bytes);
  });

  it('a journal a newer version started is refused, and no earlier record is moved over it', async () => {
    const at = join(dir, 'newer-journal.json');
    const journal = place('newer-journal.json.journal');
    const bytes = readFileSync(journal, 'utf8');
    await assert.rejects(new FileManifestStore(at, SERVICE).load('docs'), (error: Error) => error instanceof NewerSyncRecordError && /journal version 2/.test(error.message));
    const earlier = place('v1-8752afe.json', 'earlier.json');
    await assert.rejects(adoptEarlierRecord(new FileManifestStore(at, SERVICE), 'docs', [earlier]), NewerSyncRecordError);
    assert.equal(readFileSync(journal, 'utf8'), bytes);
    assert.ok(readFileSync(earlier, 'utf8').includes('"version": 1'), 'the earlier record stays where it was');
  });
});
