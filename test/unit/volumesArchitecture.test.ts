// The Volumes and Upload logic that the emulator suites test must stay free of `vscode`,
// or it could no longer run under plain mocha.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';

const VSCODE_FREE = [
  'src/volumes/fileDisplay.ts',
  'src/volumes/fileDeletion.ts',
  'src/volumes/fileSearch.ts',
  'src/volumes/statusPoller.ts',
  'src/volumes/volumeListing.ts',
  'src/volumes/volumeNames.ts',
  'src/upload/duplicatePlanning.ts',
  'src/upload/folderExpansion.ts',
  'src/upload/readableFiles.ts',
  'src/upload/uploadMemory.ts',
  'src/upload/uploadRun.ts',
];

describe('volumes/upload architecture', () => {
  it('keeps paging, polling, expansion, planning and the upload run free of vscode', () => {
    const offenders = VSCODE_FREE.filter((file) => /from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)/.test(readFileSync(file, 'utf8')));
    assert.deepEqual(offenders, []);
  });
});
