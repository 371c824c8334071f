// What an answer that did not finish normally shows inline: a state and one short sentence
// that says what to do. The full error goes to the log; no text here ever holds the key.
// A key or settings problem shows the error's own text (src/api says there what to set);
// the one-click fix is offered once, by src/common/core/errorFixes.ts, not worded again here.
import * as l10n from '@vscode/l10n';
import { isCancellation, isKsmError, redactSecrets } from '../../api/errors';
import { messageWithFix } from '../../common/core/errorFixes';
import type { AnswerState } from './conversationModel';

export interface AnswerFailure {
  state: Extract<AnswerState, 'stopped' | 'error' | 'cut-off'>;
  message?: string;
  /** Asking again unchanged may succeed (a cut-off, a busy or failing server). */
  retryable: boolean;
}

export function describeAnswerFailure(error: unknown): AnswerFailure {
  if (isCancellation(error)) return { state: 'stopped', retryable: true };
  const detail = firstLine(error);
  if (!isKsmError(error)) return { state: 'error', message: detail, retryable: true };
  switch (error.kind) {
    case 'cut-off':
      return {
        state: 'cut-off',
        message: (error as { receivedAny?: boolean }).receivedAny
          ? l10n.t('The answer was cut off: the connection closed before the service finished. Retry to ask again.')
          : l10n.t('No answer arrived: the connection closed before the service sent anything. Retry to ask again.'),
        retryable: true,
      };
    case 'stream-error':
      return { state: 'error', message: detail, retryable: true };
    case 'not-found':
      if (error.param === 'thread_id') {
        return { state: 'error', message: l10n.t('The service no longer knows this agent thread. Start a new chat to continue.'), retryable: false };
      }
      if (error.param === 'model') return { state: 'error', message: l10n.t('{0} Pick another model.', detail), retryable: false };
      return { state: 'error', message: detail, retryable: false };
    case 'rate-limited':
      return { state: 'error', message: l10n.t('{0} Wait a moment, then retry.', detail), retryable: true };
    default:
      // A key, settings, permission or request problem needs a change first; the rest may pass.
      return { state: 'error', message: detail, retryable: !['auth', 'config', 'permission', 'invalid-request'].includes(error.kind) };
  }
}

function firstLine(error: unknown): string {
  const line = messageWithFix(error) || l10n.t('Unknown error.');
  return redactSecrets(line.length > 300 ? `${line.slice(0, 297)}…` : line);
}
