// The walk's rules as a re-sync's scan applies them (src/common/core/folderExpansion.ts through
// src/sync/core/scan.ts): each skip with its reason, in walk order, the files taken with their
// path below the folder, and a recorded file (same size and mtime) taken without the
// readable-files sniff while an unrecorded one is sniffed. The walk reads folders
// synchronously and stats only what its name checks let through; these pin that nothing
// else changed.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expandSelection, isSyncStateName, syncManifestName } from '../../src/common/core/folderExpansion';
import { folderIdentity, FolderReplacedError, scanFolder, type KnownFiles } from '../../src/sync/core/scan';

describe('sync scan: the upload rules on every entry of a walked folder', () => {
  let base: string;
  let folder: string;
  const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 0xff, 0xfe, 0, 1]);

  before(() => {
    base = mkdtempSync(join(tmpdir(), 'ksm-scan-rules-'));
    folder = join(base, 'docs');
    mkdirSync(join(folder, 'b-sub', 'deeper'), { recursive: true });
    mkdirSync(join(folder, '.git'), { recursive: true });
    mkdirSync(join(folder, 'build'), { recursive: true });
    mkdirSync(join(folder, 'skipme'), { recursive: true });
    writeFileSync(join(folder, 'a.md'), '# A\n');
    writeFileSync(join(folder, 'c.md'), '# C\n');
    writeFileSync(join(folder, '.gitignore'), 'local.md\nbuild/\n');
    writeFileSync(join(folder, 'local.md'), 'mine\n');
    writeFileSync(join(folder, 'build', 'out.md'), 'generated\n');
    writeFileSync(join(folder, 'skipme', 'x.md'), 'excluded folder\n');
    writeFileSync(join(folder, '.git', 'config'), '[core]\n');
    writeFileSync(join(folder, '.env'), 'TOKEN=1\n');
    writeFileSync(join(folder, 'server.KEY'), 'x\n');
    writeFileSync(join(folder, 'image.bin'), binary);
    writeFileSync(join(folder, 'recorded.bin'), binary);
    writeFileSync(join(folder, 'b-sub', 'nested.md'), '# nested\n');
    writeFileSync(join(folder, 'b-sub', 'draft.tmp.md'), 'draft\n');
    writeFileSync(join(folder, 'b-sub', 'deeper', 'deep.md'), '# deep\n');
    writeFileSync(join(folder, 'b-sub', '.gitignore'), 'nested-ignored.md\n');
    writeFileSync(join(folder, 'b-sub', 'nested-ignored.md'), 'ignored below\n');
    writeFileSync(join(base, 'outside.md'), 'outside\n');
    symlinkSync(join(base, 'outside.md'), join(folder, 'link.md'));
    symlinkSync(base, join(folder, 'link-dir'));
    if (process.platform !== 'win32') execFileSync('mkfifo', [join(folder, 'pipe.md')]);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('skips links, non-files, .gitignore files and what they ignore, private and excluded folders, credentials and unreadable files, each with its reason; takes the rest in walk order', async () => {
    const info = statSync(join(folder, 'recorded.bin'));
    const known: KnownFiles = { get: (rel) => (rel === 'recorded.bin' ? { size: info.size, mtimeMs: info.mtimeMs } : undefined) };
    const scan = await scanFolder(folder, { excludeGlobs: ['**/skipme', '**/*.tmp.md'], maxFileSizeBytes: 0 }, undefined, Promise.resolve(known));

    assert.deepEqual(
      scan.files.map((f) => f.rel),
      ['a.md', 'b-sub/deeper/deep.md', 'b-sub/nested.md', 'c.md', 'recorded.bin'],
    );
    for (const file of scan.files) {
      assert.equal(file.path, join(folder, ...file.rel.split('/')));
      const stat = statSync(file.path);
      assert.equal(file.size, stat.size, file.rel);
      assert.equal(file.mtimeMs, stat.mtimeMs, file.rel);
    }
    // Sniffed (read whole, so hashed by the scan) unless recorded with the same size and mtime.
    assert.ok(scan.files.find((f) => f.rel === 'a.md')?.sha256);
    assert.equal(scan.files.find((f) => f.rel === 'recorded.bin')?.sha256, undefined, 'a recorded file is not read again');

    const reasons = new Map(
      scan.skipped.map((s) => [
        s.path
          .slice(folder.length + 1)
          .split('\\')
          .join('/'),
        s.reason,
      ]),
    );
    const expect: Array<[string, RegExp]> = [
      ['.gitignore', /git ignore rules/],
      ['b-sub/.gitignore', /git ignore rules/],
      ['local.md', /^ignored by line 1 of \.gitignore$/],
      ['build', /^folder ignored by line 2 of \.gitignore$/],
      ['b-sub/nested-ignored.md', /^ignored by line 1 of b-sub\/\.gitignore$/],
      ['.git', /folder inside '\.git\/'/],
      ['skipme', /folder matches an exclude pattern/],
      ['b-sub/draft.tmp.md', /matches an exclude pattern/],
      ['.env', /credential/],
      ['server.KEY', /credential/],
      ['image.bin', /./],
      ['link.md', /symbolic link/],
      ['link-dir', /symbolic link/],
    ];
    if (process.platform !== 'win32') expect.push(['pipe.md', /not a regular file/]);
    for (const [rel, reason] of expect) assert.match(reasons.get(rel) ?? '(not skipped)', reason, rel);
    assert.equal(reasons.size, expect.length, `skipped exactly these: ${[...reasons.keys()].join(', ')}`);
    for (const rel of ['build/out.md', 'skipme/x.md', '.git/config']) assert.ok(!reasons.has(rel) && !scan.files.some((f) => f.rel === rel), `${rel}: its folder is skipped whole`);
  });

  it('an unrecorded file, or a recorded one whose size or mtime changed, gets the readable-files sniff', async () => {
    const info = statSync(join(folder, 'recorded.bin'));
    for (const entry of [undefined, { size: info.size + 1, mtimeMs: info.mtimeMs }, { size: info.size, mtimeMs: info.mtimeMs - 1000 }]) {
      const scan = await scanFolder(folder, { excludeGlobs: [], maxFileSizeBytes: 0 }, undefined, { get: (rel) => (rel === 'recorded.bin' ? entry : undefined) });
      assert.ok(!scan.files.some((f) => f.rel === 'recorded.bin'), JSON.stringify(entry));
      assert.ok(scan.skipped.some((s) => s.path === join(folder, 'recorded.bin')));
    }
  });

  it('an upload of a folder takes what a sync of it takes with the same globs: inside a workspace folder both read them from it (as files.exclude), outside one from the folder itself (an upload read them from its parent)', async () => {
    const rules = { excludeGlobs: ['skipme/**', 'b-sub/deeper/**', '**/*.tmp.md'], includeGlobs: ['*.md', 'b-sub/**'], maxFileSizeBytes: 0 };
    const uploaded = async (workspaceRoots: string[]) => (await expandSelection([folder], { ...rules, workspaceRoots })).files.map((f) => f.rel).sort();
    const synced = async (root?: string) => (await scanFolder(folder, { ...rules, root })).files.map((f) => f.rel).sort();
    // No workspace folder holds it (a folder picked in the upload dialog; every folder on the command line).
    assert.deepEqual(await synced(), ['a.md', 'b-sub/nested.md', 'c.md']);
    assert.deepEqual(await uploaded([]), await synced());
    assert.deepEqual(await uploaded([join(base, 'elsewhere')]), await synced());
    // Inside a workspace folder (Explorer's Upload and an editor pairing): relative to it, so these folder-relative globs match nothing.
    const inWorkspace = await synced(base);
    assert.deepEqual(inWorkspace, []);
    assert.deepEqual(await uploaded([base]), inWorkspace);
    const workspaceGlobs = { excludeGlobs: ['docs/skipme/**', 'docs/b-sub/deeper/**', '**/*.tmp.md'], includeGlobs: ['docs/*.md', 'docs/b-sub/**'], maxFileSizeBytes: 0 };
    const workspaceUpload = (await expandSelection([folder], { ...workspaceGlobs, workspaceRoots: [base] })).files.map((f) => f.rel).sort();
    assert.deepEqual(workspaceUpload, ['a.md', 'b-sub/nested.md', 'c.md']);
    assert.deepEqual(workspaceUpload, (await scanFolder(folder, { ...workspaceGlobs, root: base })).files.map((f) => f.rel).sort());
  });

  it("leaves out the sync's own manifests (each volume's and the single-pairing one), journals, locks and atomic-write temp files, and a subfolder's that is synced on its own; a file merely named like one is taken", async () => {
    const synced = join(base, 'synced');
    const prod = syncManifestName('https://ksm.example.com', 'Prod..x');
    mkdirSync(join(synced, 'sub', '.ksm-sync.json.lock'), { recursive: true });
    mkdirSync(join(synced, `${prod}.lock`), { recursive: true });
    const state = [
      '.ksm-sync.json',
      '.ksm-sync.json.journal',
      'sub/.ksm-sync.json',
      'sub/.ksm-sync.json.journal',
      'sub/.ksm-sync.json.lock/x',
      prod,
      `${prod}.journal`,
      `${prod}.lock/x`,
      `${prod}.2934812`,
      `sub/${prod}`,
    ];
    for (const rel of [...state, 'a.md', 'my.ksm-sync.json.md', '.ksm-sync.notes.json', '.ksm-sync.prod.json']) writeFileSync(join(synced, rel), '{}\n');
    const scan = await scanFolder(synced, { excludeGlobs: [], maxFileSizeBytes: 0 });
    assert.deepEqual(scan.files.map((f) => f.rel).sort(), ['.ksm-sync.notes.json', '.ksm-sync.prod.json', 'a.md', 'my.ksm-sync.json.md']);
  });

  it('names each pairing\'s manifest inside the folder, whatever the volume is called: no separator, no "..", bounded, lower case, apart for names differing only by case or by service', () => {
    const hostile = ['../../etc/passwd', '..', '.', '', 'a/b', 'a\\b', 'C:\\x', 'x\u0000y', '{alice@example.com}', 'Prod', 'prod', 'PROD', 'é'.repeat(300), '-'.repeat(200), 'a..b', '.ksm-sync'];
    const names = hostile.map((v) => syncManifestName('https://ksm.example.com', v));
    for (const [i, name] of names.entries()) {
      assert.match(name, /^\.ksm-sync\.[a-z0-9_-]{1,32}\.[0-9a-f]{16}\.json$/, hostile[i]);
      assert.ok(!name.slice(1).includes('..') && !name.includes('/') && !name.includes('\\') && name.length <= 64, name);
      assert.ok(isSyncStateName(name) && isSyncStateName(`${name}.journal`) && isSyncStateName(`${name}.lock`));
    }
    assert.equal(new Set(names.map((n) => n.toLowerCase())).size, hostile.length, 'no two collide, even on a case-insensitive file system');
    assert.notEqual(syncManifestName('https://staging.example.com', 'docs'), syncManifestName('https://prod.example.com', 'docs'));
    assert.equal(syncManifestName('https://KSM.example.com/', 'docs'), syncManifestName('https://ksm.example.com', 'docs'), 'one spelling per address');
  });
});

describe('sync scan: held to the folder its caller checked (expectFolder)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ksm-scan-identity-'));
    mkdirSync(join(dir, 'docs/sub'), { recursive: true });
    writeFileSync(join(dir, 'docs/guide.md'), 'the guide');
    writeFileSync(join(dir, 'docs/sub/a.md'), 'a');
    mkdirSync(join(dir, 'outside/sub'), { recursive: true });
    writeFileSync(join(dir, 'outside/credentials.md'), 'aws_secret_access_key = outside');
    writeFileSync(join(dir, 'outside/sub/secret.md'), 'secret');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const rules = { excludeGlobs: [], maxFileSizeBytes: 0 };
  const swap = (folder: string) => {
    renameSync(folder, `${folder}.moved`);
    symlinkSync(join(dir, 'outside'), folder);
  };

  it('refuses a folder swapped for a link after it was checked (the gap before the scan): nothing where the link points is returned', async () => {
    const folder = join(dir, 'docs');
    const checked = await folderIdentity(folder);
    swap(folder);
    const result = await scanFolder(folder, { ...rules, expectFolder: checked }).catch((error: unknown) => error);
    assert.ok(result instanceof FolderReplacedError, `refused, not read through the link: ${JSON.stringify(result)}`);
  });

  it('refuses a folder swapped during the walk (a subfolder then read through the link)', async () => {
    const folder = join(dir, 'docs');
    const checked = await folderIdentity(folder);
    let swapped = false;
    // The moment the scan checks its first file (the top folder read, its subfolder not yet): the folder becomes a link.
    const known: KnownFiles = {
      get: () => {
        if (!swapped) swap(folder);
        swapped = true;
        return undefined;
      },
    };
    const result = await scanFolder(folder, { ...rules, expectFolder: checked }, undefined, known).catch((error: unknown) => error);
    assert.ok(swapped, 'the swap happened during the scan');
    assert.ok(result instanceof FolderReplacedError, `refused: ${JSON.stringify(result)}`);
  });

  it('the checked folder itself is scanned as before, and a folder recreated at the same path is refused', async () => {
    const folder = join(dir, 'docs');
    const checked = await folderIdentity(folder);
    const scan = await scanFolder(folder, { ...rules, expectFolder: checked });
    assert.deepEqual(scan.files.map((f) => f.rel).sort(), ['guide.md', 'sub/a.md']);
    renameSync(folder, `${folder}.moved`);
    mkdirSync(folder);
    await assert.rejects(scanFolder(folder, { ...rules, expectFolder: checked }), FolderReplacedError);
  });

  it("a check that found no folder ('not-found', was a made-up device and inode) refuses whatever is there at scan time", async () => {
    const folder = join(dir, 'docs');
    await assert.rejects(scanFolder(folder, { ...rules, expectFolder: 'not-found' }), FolderReplacedError);
    swap(folder);
    await assert.rejects(scanFolder(folder, { ...rules, expectFolder: 'not-found' }), FolderReplacedError);
  });
});
