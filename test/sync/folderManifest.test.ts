// Where a pairing's sync record lives (src/sync/core/folderManifest.ts), on real files: the
// editor's records are named by folder, volume AND service (two services with a volume of
// the same name keep two records); a record an earlier version kept (folder and volume
// alone, or in a workspace's storage) is moved to the pairing's with its journal replayed,
// once, never over a record of its own, never through a symbolic link, and never when it
// records another volume or service. The CLI's single-pairing `.ksm-sync.json` is moved by
// its own pairing only (test/cli/syncPerVolume.test.ts runs that through the built ksm).
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adoptEarlierRecord, editorRecordName, openFolderManifest } from '../../src/sync/core/folderManifest';
import { applyChange, type ManifestChange } from '../../src/sync/core/journal';
import { emptyManifest, FileManifestStore, type Manifest } from '../../src/sync/core/manifest';

const SHA = 'a'.repeat(64);

describe('sync records per pairing (folder, volume, service)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-folder-manifest-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** An earlier version's record: a manifest holding `a.md`, and a journal (not folded in) that adds `b.md`. */
  async function earlierRecord(location: string, volume: string, service?: string): Promise<void> {
    const store = new FileManifestStore(location, service, { compactEveryRun: false, remember: false });
    const manifest: Manifest = emptyManifest(volume);
    manifest.files['a.md'] = { sha256: SHA, size: 1, mtimeMs: 1, uuid: 'uuid-a', remoteName: 'a.md' };
    await store.save(manifest);
    await store.load(volume);
    const changes: ManifestChange[] = [
      { kind: 'intent', rel: 'b.md', sha256: SHA, size: 2 },
      { kind: 'recorded', rel: 'b.md', mtimeMs: 2, uuid: 'uuid-b' },
    ];
    const copy: Manifest = { ...manifest, files: { ...manifest.files }, intents: Object.create(null) };
    for (const change of changes) applyChange(copy, change);
    await store.append(copy, changes);
    await store.close();
    assert.ok(existsSync(store.journalLocation));
  }

  it("names the editor's record by folder, volume and service; without a service, the name earlier versions gave it", () => {
    const folder = '/work/handbook';
    assert.equal(editorRecordName(folder, 'docs'), `${createHash('sha256').update(`${folder}\ndocs`).digest('hex').slice(0, 24)}.json`);
    const staging = editorRecordName(folder, 'docs', 'https://staging.example.com');
    assert.notEqual(staging, editorRecordName(folder, 'docs', 'https://prod.example.com'));
    assert.notEqual(staging, editorRecordName(folder, 'docs'));
    assert.equal(staging, editorRecordName(folder, 'docs', 'https://STAGING.example.com/'));
    assert.match(staging, /^[0-9a-f]{24}\.json$/);
  });

  it("moves an earlier version's record (its journal replayed) to the pairing's, once, and removes it", async () => {
    const earlier = join(dir, 'old', editorRecordName('/f', 'docs'));
    await earlierRecord(earlier, 'docs');
    const store = new FileManifestStore(join(dir, 'sync', editorRecordName('/f', 'docs', 'https://ksm.example.com')), 'https://ksm.example.com', { compactEveryRun: false });
    assert.equal(await adoptEarlierRecord(store, 'docs', [join(dir, 'missing.json'), earlier]), earlier);
    assert.ok(!existsSync(earlier) && !existsSync(`${earlier}.journal`), 'moved, not copied');
    const loaded = await store.load('docs');
    assert.equal(loaded.state, 'ok');
    if (loaded.state !== 'ok') return;
    assert.deepEqual(Object.keys(loaded.manifest.files).sort(), ['a.md', 'b.md'], 'the journal was replayed into it');
    assert.equal(JSON.parse(await readFile(store.location, 'utf8')).service, 'https://ksm.example.com');
    // A record of its own is never replaced.
    await earlierRecord(earlier, 'docs');
    assert.equal(await adoptEarlierRecord(store, 'docs', [earlier]), undefined);
    assert.ok(existsSync(earlier));
  });

  it("moves an earlier record when the pairing's manifest is gone but its journal was left beside it (that journal records changes to a manifest no one has)", async () => {
    const earlier = join(dir, 'old', editorRecordName('/f', 'docs'));
    await earlierRecord(earlier, 'docs');
    const location = join(dir, 'sync', editorRecordName('/f', 'docs', 'https://ksm.example.com'));
    await earlierRecord(location, 'docs', 'https://ksm.example.com');
    rmSync(location);
    const store = new FileManifestStore(location, 'https://ksm.example.com', { compactEveryRun: false });
    assert.equal(await adoptEarlierRecord(store, 'docs', [earlier]), earlier);
    const loaded = await store.load('docs');
    assert.equal(loaded.state, 'ok');
  });

  it('leaves an earlier record of another volume or another service alone, and never follows a link', async () => {
    const store = new FileManifestStore(join(dir, 'sync', 'new.json'), 'https://prod.example.com');
    const otherVolume = join(dir, 'other-volume.json');
    const otherService = join(dir, 'other-service.json');
    await earlierRecord(otherVolume, 'staging');
    await earlierRecord(otherService, 'docs', 'https://staging.example.com');
    const target = join(dir, 'target.json');
    await writeFile(target, await readFile(otherVolume, 'utf8'));
    const link = join(dir, 'link.json');
    await symlink(target, link);
    assert.equal(await adoptEarlierRecord(store, 'docs', [otherVolume, otherService, link]), undefined);
    assert.ok(existsSync(otherVolume) && existsSync(otherService) && existsSync(target));
    assert.ok(!existsSync(store.location) && !existsSync(join(dir, 'sync')));
  });

  it("ksm sync's folder: the single-pairing .ksm-sync.json is moved by its own pairing only; a dry run reads it in place", async () => {
    const folder = join(dir, 'folder');
    await earlierRecord(join(folder, '.ksm-sync.json'), 'staging', 'https://ksm.example.com');
    const other = await openFolderManifest(folder, 'https://ksm.example.com', 'prod', { migrate: true });
    assert.equal(other.legacy, 'none');
    assert.ok(existsSync(join(folder, '.ksm-sync.json')));
    const dry = await openFolderManifest(folder, 'https://ksm.example.com', 'staging', { migrate: false });
    assert.equal(dry.legacy, 'read');
    assert.equal(dry.store.location, join(folder, '.ksm-sync.json'));
    const run = await openFolderManifest(folder, 'https://ksm.example.com', 'staging', { migrate: true });
    assert.equal(run.legacy, 'migrated');
    const loaded = await run.store.load('staging');
    assert.equal(loaded.state === 'ok' && Object.keys(loaded.manifest.files).sort().join(), 'a.md,b.md');
    assert.deepEqual((await readdir(folder)).sort(), [run.store.location.slice(folder.length + 1)]);
  });
});
