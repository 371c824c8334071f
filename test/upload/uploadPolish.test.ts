// Issue 14's upload rules without VS Code: what a folder upload takes and how it names it
// (D24), what a selection of only skipped files says, the duplicate question's choices,
// the remembered processing and volume names in sentences.
import { strict as assert } from 'node:assert';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileInfo } from '../../src/api/types';
import { expandSelection, volumeNameFor } from '../../src/common/core/folderExpansion';
import { PERSONAL_VOLUME_LABEL, volumeDisplayName } from '../../src/common/core/volumeTargets';
import { remoteNameFor } from '../../src/sync/core/scan';
import { planUploads, type DuplicateQuestion } from '../../src/upload/core/duplicatePlanning';
import { processingWithoutAsking, withChunking } from '../../src/upload/core/uploadMemory';
import { duplicateOptions, duplicateTitle, identicalReason, nothingToUploadMessage, summaryLine } from '../../src/upload/core/uploadMessages';
import type { UploadSummary } from '../../src/upload/core/uploadRun';

const info = (filename: string, uuid = filename): FileInfo => ({ uuid, filename, status: 'done', filesize: 1, date: '20261122010203', isdir: 0 });

describe('upload: folder selection and names (D24)', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'ksm-upload-polish-'));
    const files: Record<string, string | Buffer> = {
      'ws/.gitignore': '*.draft.md\n',
      'ws/docs/.gitignore': 'private/\n',
      'ws/docs/guide.md': '# Guide\n',
      'ws/docs/plan.draft.md': 'ignored by the workspace .gitignore',
      'ws/docs/private/secret.md': 'ignored by the folder .gitignore',
      'ws/docs/guides/setup.md': '# Setup\n',
      'ws/docs/guides/deep/faq.md': '# FAQ\n',
      'ws/docs/logo.bin': Buffer.from([0, 1, 2, 3]),
      'ws/big.txt': 'x'.repeat(3000),
      'ws/blob.bin': Buffer.from([0xff, 0, 0xfe]),
    };
    for (const [rel, content] of Object.entries(files)) {
      await mkdir(join(root, rel, '..'), { recursive: true });
      await writeFile(join(root, rel), content);
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  const expand = (paths: string[]) =>
    expandSelection(
      paths.map((p) => join(root, p)),
      { excludeGlobs: [], maxFileSizeBytes: 1000, workspaceRoots: [join(root, 'ws')] },
    );

  it('honours every .gitignore from the workspace down, never uploads a .gitignore, and keeps paths below the selected folder in the name', async () => {
    const expansion = await expand(['ws/docs']);
    assert.deepEqual(expansion.files.map((f) => f.volumeName).sort(), ['guide.md', 'guides__deep__faq.md', 'guides__setup.md']);
    const reasons = new Map(expansion.skipped.map((s) => [s.path.slice(root.length + 1), s.reason]));
    assert.match(reasons.get('ws/docs/.gitignore')!, /not uploaded/);
    assert.equal(reasons.get('ws/docs/plan.draft.md'), 'ignored by line 1 of .gitignore', 'the workspace .gitignore, named from the workspace folder');
    assert.equal(reasons.get('ws/docs/private'), 'folder ignored by line 1 of docs/.gitignore');
    assert.match(reasons.get('ws/docs/logo.bin')!, /binary/);
  });

  it("leaves ksm sync's manifest, journal and lock out of a folder (the editor's upload too, at any depth), but sends one picked by name", async () => {
    for (const rel of ['ws/synced/.ksm-sync.json', 'ws/synced/.ksm-sync.json.journal', 'ws/synced/.ksm-sync.json.lock/owner', 'ws/synced/sub/.ksm-sync.json', 'ws/synced/notes.md']) {
      await mkdir(join(root, rel, '..'), { recursive: true });
      await writeFile(join(root, rel), '{"files":{}}\n');
    }
    const expansion = await expand(['ws/synced']);
    assert.deepEqual(
      expansion.files.map((f) => f.volumeName),
      ['notes.md'],
    );
    const picked = await expand(['ws/synced/.ksm-sync.json']);
    assert.deepEqual(
      picked.files.map((f) => f.volumeName),
      ['.ksm-sync.json'],
    );
  });

  it('names a file picked by name by its own name, and uses the same rule as folder sync', async () => {
    const expansion = await expand(['ws/docs/guides/setup.md']);
    assert.deepEqual(
      expansion.files.map((f) => f.volumeName),
      ['setup.md'],
    );
    for (const rel of ['a.md', 'docs/guide.md', 'a/b/c d.txt']) assert.equal(remoteNameFor(rel), volumeNameFor(rel));
    assert.equal(volumeNameFor('guides/deep/faq.md'), 'guides__deep__faq.md');
  });

  it('a selection of only skipped files is told at once, as a warning naming each reason', async () => {
    const expansion = await expand(['ws/big.txt', 'ws/blob.bin']);
    assert.equal(expansion.files.length, 0);
    const message = nothingToUploadMessage(expansion.skipped);
    assert.match(message, /^Nothing to upload: all 2 files were skipped\./);
    assert.match(message, /big\.txt: larger than the 1000 B limit/);
    assert.match(message, /blob\.bin: binary file/);
    assert.match(nothingToUploadMessage(expansion.skipped.slice(0, 1)), /^Nothing to upload: the file was skipped\. big\.txt: larger/);
    const many = Array.from({ length: 5 }, (_, i) => ({ path: `/x/f${i}.bin`, reason: i < 3 ? 'binary file' : 'too big' }));
    assert.equal(nothingToUploadMessage(many), 'Nothing to upload: all 5 files were skipped. 3 × binary file; 2 × too big.');
  });

  it('plans folder files under their D24 names, and duplicates are found by that name', async () => {
    const files = [{ path: '/w/docs/guides/setup.md', size: 1, displayPath: 'docs/guides/setup.md', volumeName: 'guides__setup.md' }];
    const asked: DuplicateQuestion[] = [];
    const plan = await planUploads(files, [info('guides__setup.md'), info('guides__setup (2).md', 'u2')], async (q) => {
      asked.push(q);
      return { choice: 'keepBoth', applyToAll: false };
    });
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.keepBothName, 'guides__setup (3).md', 'the question names the free name Keep Both uses');
    assert.deepEqual(
      plan.uploads.map((u) => u.source.filename),
      ['guides__setup (3).md'],
      'never collides with a name already in the volume',
    );
  });
});

describe('upload: the duplicate question (issue 14 defect 10)', () => {
  const question = (remaining: number, copies = 1): DuplicateQuestion => ({
    filename: 'notes.txt',
    keepBothName: 'notes (2).txt',
    existing: Array.from({ length: copies }, (_, i) => info('notes.txt', `u${i}`)),
    remaining,
  });

  it('offers Skip, Keep Both and Replace, with the safe Skip first (the default), never Replace', () => {
    const options = duplicateOptions(question(1), PERSONAL_VOLUME_LABEL);
    assert.deepEqual(
      options.map((o) => o.label),
      ['Skip', 'Keep Both', 'Replace'],
    );
    assert.equal(options[0]!.choice, 'skip');
    assert.ok(options.every((o) => !o.applyToAll));
    assert.match(options[1]!.detail, /"notes \(2\)\.txt"/, 'Keep Both says the name it uploads under');
    assert.match(options[0]!.detail, /My files/, 'the volume is named');
  });

  it('adds the same three "for all remaining" when more names clash, still safe first', () => {
    const options = duplicateOptions(question(4), 'team');
    assert.deepEqual(
      options.map((o) => o.label),
      ['Skip', 'Keep Both', 'Replace', 'Skip All', 'Keep Both for All', 'Replace All'],
    );
    assert.deepEqual(
      options.map((o) => o.applyToAll),
      [false, false, false, true, true, true],
    );
    assert.match(options[5]!.detail, /in team/);
  });

  it("shows a workspace file's name and the volume's as text where the quick pick draws $(icons)", () => {
    const hostile: DuplicateQuestion = { ...question(1), filename: '$(check) Apply\u202e.txt', keepBothName: '$(check) Apply (2).txt' };
    const shownTexts = [duplicateTitle(hostile, '$(warning) team'), ...duplicateOptions(hostile, '$(warning) team').map((o) => o.detail)];
    for (const text of shownTexts) assert.ok(!/(^|[^\\])\$\(/.test(text) && !text.includes('\u202e'), text);
    assert.match(duplicateTitle(hostile, 'team'), /"\\\$\(check\) Apply\\u202e\.txt"/);
  });

  it('names the volume (as people see it) and the number of copies in the title', () => {
    assert.equal(duplicateTitle(question(1), 'My files'), '"notes.txt" is already in My files');
    assert.equal(duplicateTitle(question(1, 3), 'team'), '"notes.txt" is already in team (3 copies)');
  });
});

describe('upload: remembered processing and volume names in messages', () => {
  it('uses the processing remembered for a volume without asking, unless asked to always ask', () => {
    const remembered = withChunking(undefined, 'team', 0);
    assert.equal(processingWithoutAsking(remembered, 'team', false), 0);
    assert.equal(processingWithoutAsking(remembered, 'other', false), undefined, 'nothing remembered: ask');
    assert.equal(processingWithoutAsking(remembered, 'team', true), undefined, 'ksm.upload.askProcessing');
    assert.equal(processingWithoutAsking({ team: 'junk' }, 'team', false), undefined);
  });

  it('says "My files" for the personal volume, never its raw {id}', () => {
    assert.equal(volumeDisplayName('{dev}', '{dev}'), 'My files');
    assert.equal(volumeDisplayName('team', '{dev}'), 'team');
    assert.equal(volumeDisplayName('{other}', '{dev}'), '{other}', 'another user\'s volume is not "My files"');
    const summary: UploadSummary = { volume: '{dev}', results: [], uploaded: 2, failed: 0, skipped: 1, excluded: 0, cancelled: 0, wasCancelled: false, replacements: [] };
    assert.equal(summaryLine(summary, volumeDisplayName(summary.volume, '{dev}')), '2 uploaded, 1 skipped — My files');
  });
});

describe('upload: a workspace file name in a notification is text', () => {
  it('quotes a skipped or identical file whose name is a command link as text, escaped and bounded', () => {
    const name = '[Trust this folder](command:workbench.action.terminal.sendSequence?%7B%7D)\u202E.env';
    const LINK = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i;
    const skipped = nothingToUploadMessage([{ path: `/w/${name}`, reason: 'looks like a credential' }]);
    assert.equal(LINK.exec(skipped), null, skipped);
    assert.ok(!skipped.includes('\u202E'), skipped);
    const identical = summaryLine(
      {
        volume: 'team',
        uploaded: 0,
        failed: 0,
        skipped: 1,
        cancelled: 0,
        replacements: [],
        results: [{ outcome: 'skipped', filename: name, path: `/w/${name}`, reason: identicalReason() }],
      } as unknown as Parameters<typeof summaryLine>[0],
      'team',
    );
    assert.match(identical, /is already in team, identical/);
    assert.equal(LINK.exec(identical), null, identical);
  });
});
