// What "Ask About Selection/File" attach to the next question, without `vscode`: the code as
// a context chip (file name and line range), never pasted into the composer. A whole file
// is attached at once, after asking first when it is large (many tokens), or refused when
// it cannot fit in one message, with a pointer to the agent, which reads uploaded files itself.
import { MAX_CODE_CONTEXT_CHARS } from '../../common/core/chatText';
import { formatBytes } from '../../common/core/byteSize';
import type { CodeContext } from './conversationModel';

export const ASK_ANYWAY = 'Ask Anyway';

/**
 * Above this, "Ask About File" asks before attaching the whole file (many tokens). Files too
 * big for one message (MAX_CODE_CONTEXT_CHARS) are refused with a pointer to upload + agent instead.
 */
export const LARGE_FILE_CHARS = 50 * 1024;

export type NewCodeContext = Omit<CodeContext, 'id'>;

export type AskAboutCodePlan =
  { kind: 'attach'; code: NewCodeContext } | { kind: 'confirm'; code: NewCodeContext; message: string; confirmLabel: typeof ASK_ANYWAY } | { kind: 'refuse'; message: string };

function limitText(): string {
  return `${MAX_CODE_CONTEXT_CHARS.toLocaleString('en-US')} characters`;
}

export function planAskAboutFile(filename: string, languageId: string, text: string): AskAboutCodePlan {
  const code: NewCodeContext = { filename, languageId, text };
  if (text.length > MAX_CODE_CONTEXT_CHARS) {
    return {
      kind: 'refuse',
      message:
        `${filename} is too large to send with a question (${text.length.toLocaleString('en-US')} characters; the limit is ${limitText()}). ` +
        'Select the part you want and use Ask About Selection, or upload the file to a volume and ask the agent about it.',
    };
  }
  if (text.length > LARGE_FILE_CHARS) {
    const message = `${filename} is ${formatBytes(text.length)}. Large files may exceed the model's context and cost many tokens.`;
    return { kind: 'confirm', code, message, confirmLabel: ASK_ANYWAY };
  }
  return { kind: 'attach', code };
}

export function planAskAboutSelection(filename: string, languageId: string, text: string, lines: { start: number; end: number }): AskAboutCodePlan {
  if (text.length > MAX_CODE_CONTEXT_CHARS) {
    return { kind: 'refuse', message: `The selection is too large to send (${text.length.toLocaleString('en-US')} characters; the limit is ${limitText()}). Select less.` };
  }
  return { kind: 'attach', code: { filename, languageId, lines, text } };
}

/**
 * Whether `code` may join the code already waiting for the next question: together they
 * must stay under MAX_CODE_CONTEXT_CHARS. The same file and lines replace the old chip.
 */
export function codeContextProblem(pending: readonly CodeContext[], code: NewCodeContext): string | undefined {
  const others = pending.filter((p) => !sameCode(p, code));
  const total = others.reduce((sum, p) => sum + p.text.length, 0) + code.text.length;
  if (total <= MAX_CODE_CONTEXT_CHARS) return undefined;
  return (
    `${codeLabel(code)} would bring the code sent with this question to ${total.toLocaleString('en-US')} characters; the limit is ${limitText()}. ` +
    'Remove a chip above the message box, or select less.'
  );
}

export function sameCode(a: NewCodeContext, b: NewCodeContext): boolean {
  return a.filename === b.filename && a.lines?.start === b.lines?.start && a.lines?.end === b.lines?.end;
}

/** "release.py · lines 3-9", or "release.py" for a whole file: chips, messages and the request alike. */
export function codeLabel(code: Pick<CodeContext, 'filename' | 'lines'>): string {
  return code.lines ? `${code.filename} · lines ${code.lines.start}-${code.lines.end}` : code.filename;
}
