import { eventually } from '../harness/eventually';
import type { E2ERun } from '../harness/run';

export const HANDBOOK = 'lighthouse-handbook.md';
const CONTENT = '# Lighthouse handbook\n\nThe lighthouse keeper polishes the brass lens every Friday and logs each storm warning in the harbour ledger.\n';

/** Puts the handbook into the personal volume through the service API and waits until it is searchable. */
export async function seedHandbook(run: E2ERun): Promise<void> {
  const personal = `{${run.emulator.userId}}`;
  if ((await run.emulator.listFiles(personal)).some((f) => f.filename === HANDBOOK && f.status === 'done')) return;
  const seeded = await run.emulator.uploadFile(personal, HANDBOOK, CONTENT, 1);
  await eventually(
    async () => (await run.emulator.listFiles(personal)).find((f) => f.uuid === seeded.uuid)?.status === 'done',
    () => `${HANDBOOK} never reached done in the emulator`,
    60_000,
  );
}
