import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './paths';

export const IGNORED_FILE = join('docs', 'meeting.draft.md');

/**
 * A fresh copy of test/e2e/fixtures/workspace. The .gitignore'd file is created here, not
 * committed: git itself honours the fixture's .gitignore and would never store it.
 */
export function prepareWorkspace(): string {
  const folder = mkdtempSync(join(tmpdir(), 'ksm-e2e-workspace-'));
  cpSync(join(REPO_ROOT, 'test', 'e2e', 'fixtures', 'workspace'), folder, { recursive: true });
  writeFileSync(join(folder, IGNORED_FILE), '# Draft\nNot for upload: ignored by .gitignore.\n');
  return folder;
}
