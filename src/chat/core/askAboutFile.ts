// What "Ask About Selection/File" put in the composer, without `vscode`: the code as a
// fenced block under its file name; for a whole file, paste it, ask first (a large file
// costs many tokens), or refuse (it cannot fit in one message) with a pointer to the agent,
// which reads uploaded files itself.
import { codePrefill, MAX_TEXT_CHARS } from '../../common/core/chatText';
import { formatBytes } from '../../common/core/byteSize';

/** Room left under the message limit for the question the user types after the pasted code. */
export const PREFILL_HEADROOM_CHARS = 2_000;

/** The largest prefill the composer is given: the rest of the message limit is left for the question. */
export const MAX_PREFILL_CHARS = MAX_TEXT_CHARS - PREFILL_HEADROOM_CHARS;

export const ASK_ANYWAY = 'Ask Anyway';

/**
 * Above this, "Ask About File" asks before pasting the whole file (many tokens). Files too
 * big for one message (MAX_TEXT_CHARS) are refused with a pointer to upload + agent instead.
 */
export const LARGE_FILE_CHARS = 50 * 1024;


export type AskAboutFilePlan =
  | { kind: 'prefill'; prefill: string }
  | { kind: 'confirm'; prefill: string; message: string; confirmLabel: typeof ASK_ANYWAY }
  | { kind: 'refuse'; message: string };

export function planAskAboutFile(fileName: string, languageId: string, content: string): AskAboutFilePlan {
  const prefill = codePrefill(fileName, languageId, content);
  if (prefill.length > MAX_PREFILL_CHARS) {
    return {
      kind: 'refuse',
      message:
        `${fileName} is too large to paste into the chat (over ${MAX_TEXT_CHARS.toLocaleString('en-US')} characters). ` +
        'Select the part you want and use Ask About Selection, or upload the file to a volume and ask the agent about it.',
    };
  }
  if (content.length > LARGE_FILE_CHARS) {
    const message = `${fileName} is ${formatBytes(content.length)}. Large files may exceed the model's context and cost many tokens.`;
    return { kind: 'confirm', prefill, message, confirmLabel: ASK_ANYWAY };
  }
  return { kind: 'prefill', prefill };
}
