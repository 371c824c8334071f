// Check Connection's steps about the account: the API key (with the personal volume, limit
// 1: a 401 is the key, a 403 the user id), the personal volume, and the named volumes of
// ksm.volumes.list (limit 1 each). Nothing is written.
import * as l10n from '@vscode/l10n';
import { isKsmError } from '../../api/errors';
import { asSentence, type CheckStep, type StepResult } from './checkRun';
import { fixFor } from '../../common/core/errorFixes';
import { diagnose } from './fixes';

const apiStepTitle = (): string => l10n.t('The address answers as the KSM API');

/** How many configured named volumes are listed (each with limit 1). */
const MAX_NAMED_VOLUMES = 5;

export const keyStep: CheckStep = {
  id: 'key',
  get title() {
    return l10n.t('API key accepted');
  },
  async run(check) {
    if (!check.deps.hasApiKey) {
      check.add({ id: 'key', title: this.title, status: 'failed', detail: l10n.t('No API key is stored.'), problem: 'no-key', fix: fixFor('no-key', check.fixContext) });
      return l10n.t('no API key');
    }
    // Without a user id the key is tried on a named volume: an unknown one still answers 404 after authentication.
    const keyVolume = check.personal ?? check.target.volumes[0] ?? 'ksm-connection-check';
    const listing = await check.timed(() => check.client().listFiles({ volume: keyVolume, limit: 1 }, { signal: check.signal }));
    check.keyListing = listing;
    const error = listing.error;
    if (error && !answeredAfterAuthentication(error)) {
      const refused = isKsmError(error) && (error.kind === 'auth' || error.kind === 'config');
      const problem = diagnose(error, 'key', check.fixContext).problem;
      if (!refused && problem !== 'key' && problem !== 'no-key' && problem !== 'user-id') {
        // The key was never judged: the address answers, but not as the KSM API (or the
        // service failed). The first failing step is that one, not "API key accepted".
        const why = l10n.t('the address did not answer as the KSM API');
        check.failed('api', apiStepTitle(), error, 'key', listing.ms);
        check.add({ id: 'key', title: this.title, status: 'skipped', detail: l10n.t('Not run: {0}.', why) });
        return why;
      }
      check.failed('key', this.title, error, 'key', listing.ms);
      return refused ? l10n.t('the API key was not accepted') : l10n.t('the service did not answer the listing');
    }
    const answered = error ? `HTTP ${(error as { status?: number }).status}` : 'OK';
    check.add({ id: 'key', title: this.title, status: 'passed', ms: listing.ms, detail: l10n.t('The service authenticated the key (listing {0} answered {1}).', keyVolume, answered) });
    return undefined;
  },
};

/**
 * A 403, a 400 or a 404 that names the volume (by param, or in its message where the body
 * has no param) comes from the API after authentication; any other 404 is the address's.
 */
function answeredAfterAuthentication(error: unknown): boolean {
  if (!isKsmError(error)) return false;
  if (error.kind === 'permission' || error.kind === 'invalid-request') return true;
  return error.kind === 'not-found' && (error.param === 'volume' || /volume/i.test(error.message.replace(/^Listing files of volume '[^']*'/, '')));
}

export const personalVolumeStep: CheckStep = {
  id: 'personal-volume',
  get title() {
    return l10n.t('Personal volume listable');
  },
  async run(check) {
    const personal = check.personal;
    const listing = check.keyListing;
    if (!personal) {
      check.add({
        id: 'personal-volume',
        title: this.title,
        status: 'failed',
        detail: l10n.t("'ksm.userId' is not set, so the personal volume is unknown."),
        problem: 'user-id',
        fix: fixFor('user-id', check.fixContext),
      });
    } else if (listing?.error) {
      check.failed('personal-volume', `${this.title}: ${personal}`, listing.error, 'key', listing.ms, { volume: personal });
    } else if (listing?.value) {
      const page = listing.value;
      check.add({
        id: 'personal-volume',
        title: `${this.title}: ${personal}`,
        status: 'passed',
        ms: listing.ms,
        detail: page.files[0] ? l10n.t("{0} file(s); the first is in state '{1}'.", page.total, page.files[0].status) : l10n.t('{0} file(s).', page.total),
      });
    }
    return undefined;
  },
};

/** An unknown named volume is only created by its first upload, so a 404 is a note, not a failure. */
export const namedVolumesStep: CheckStep = {
  id: 'volumes',
  get title() {
    return l10n.t('Configured volumes listable');
  },
  async run(check) {
    const named = check.target.volumes.filter((v) => v !== check.personal).slice(0, MAX_NAMED_VOLUMES);
    if (named.length === 0) {
      check.add({ id: 'volumes', title: this.title, status: 'skipped', detail: l10n.t("'ksm.volumes.list' names no other volume.") });
      return undefined;
    }
    const notes: string[] = [];
    let worst: StepResult | undefined;
    let total = 0;
    for (const volume of named) {
      const result = await check.timed(() => check.client().listFiles({ volume, limit: 1 }, { signal: check.signal }));
      total += result.ms;
      if (!result.error) notes.push(`${volume}: ${result.value!.total} file(s)`);
      // The same endpoint just answered for the personal volume, so a 404 here is this volume's.
      else if (isKsmError(result.error) && result.error.kind === 'not-found') notes.push(l10n.t('{0}: does not exist yet (its first upload creates it)', volume));
      else {
        if (check.signal?.aborted) throw result.error;
        const diagnosis = diagnose(result.error, 'volume', { ...check.fixContext, volume });
        notes.push(`${volume}: ${diagnosis.said}`);
        worst ??= { id: 'volumes', title: this.title, status: 'failed', detail: '', problem: diagnosis.problem, fix: diagnosis.fix };
      }
    }
    check.add({ ...(worst ?? { id: 'volumes', title: this.title, status: 'passed' }), ms: total, detail: asSentence(notes.map((note) => note.replace(/\.$/, '')).join('; ')) });
    return undefined;
  },
};
