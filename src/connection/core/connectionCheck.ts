// "KSM: Check Connection", without VS Code: a read-only round against the configured
// service that takes seconds. Each step runs only when the steps before it let the run go
// on, is timed, and says what to fix when it fails. Nothing here writes to the service: a
// listing (limit 1), a one-token completion, and, only when the user agreed, one tiny agent
// question (it starts a thread, so the user is asked first).
//
// Adding a step: write it as a `CheckStep` (checkRun.ts) in the file of its kind
// (addressSteps.ts, accountSteps.ts, answerSteps.ts), add its id to `StepId`, and put it in
// CHECK_STEPS where it belongs; the report (report.ts) lists it with no further change.
import * as l10n from '@vscode/l10n';
import { addressStep, reachStep } from './addressSteps';
import { keyStep, namedVolumesStep, personalVolumeStep } from './accountSteps';
import { agentStep, modelStep } from './answerSteps';
import { outputFormatStep } from './outputFormatCheck';
import { CheckRun, type CheckDeps, type CheckStep, type ConnectionReport } from './checkRun';

/** The steps in the order they run; a step that returns a reason stops the run, and the rest are listed as skipped. */
export const CHECK_STEPS: readonly CheckStep[] = [addressStep, reachStep, keyStep, personalVolumeStep, namedVolumesStep, modelStep, outputFormatStep, agentStep];

export async function runConnectionCheck(deps: CheckDeps): Promise<ConnectionReport> {
  const check = new CheckRun(deps);
  const steps = CHECK_STEPS;
  for (const [index, step] of steps.entries()) {
    const stop = await step.run(check);
    if (stop === undefined) continue;
    for (const skipped of steps.slice(index + 1)) check.add({ id: skipped.id, title: skipped.title, status: 'skipped', detail: l10n.t('Not run: {0}.', stop) });
    break;
  }
  return check.report;
}
