// What "Ask About Selection/File" attach to the next question, without `vscode`: the code as
// a context chip (file name and line range), never pasted into the composer. A whole file
// is attached at once, after asking first when it is large (many tokens), or refused when
// it cannot fit in one message, with a pointer to the agent, which reads uploaded files itself.
import * as l10n from '@vscode/l10n';
import { MAX_CODE_CONTEXT_CHARS } from '../../common/core/chatText';
import { formatBytes } from '../../common/core/byteSize';
import type { CodeContext } from './conversationModel';
import { chatContextDecision, chatContextNote, type PrivateFileRules } from '../../common/core/privateFiles';

export const askAnyway = (): string => l10n.t('Ask Anyway');

/**
 * Above this, "Ask About File" asks before attaching the whole file (many tokens). Files too
 * big for one message (MAX_CODE_CONTEXT_CHARS) are refused with a pointer to upload + agent instead.
 */
export const LARGE_FILE_CHARS = 50 * 1024;

export type NewCodeContext = Omit<CodeContext, 'id'>;

export type AskAboutCodePlan = { kind: 'attach'; code: NewCodeContext } | { kind: 'confirm'; code: NewCodeContext; message: string; confirmLabel: string } | { kind: 'refuse'; message: string };

function limitText(): string {
  return `${MAX_CODE_CONTEXT_CHARS.toLocaleString('en-US')} characters`;
}

export function planAskAboutFile(filename: string, languageId: string, text: string): AskAboutCodePlan {
  const code: NewCodeContext = { filename, languageId, text };
  if (text.length > MAX_CODE_CONTEXT_CHARS) {
    return {
      kind: 'refuse',
      message:
        l10n.t('{0} is too large to send with a question ({1} characters; the limit is {2}). ', filename, text.length.toLocaleString('en-US'), limitText()) +
        l10n.t('Select the part you want and use Ask About Selection, or upload the file to a volume and ask the agent about it.'),
    };
  }
  if (text.length > LARGE_FILE_CHARS) {
    const message = l10n.t("{0} is {1}. Large files may exceed the model's context and cost many tokens.", filename, formatBytes(text.length));
    return { kind: 'confirm', code, message, confirmLabel: askAnyway() };
  }
  return { kind: 'attach', code };
}

export function planAskAboutSelection(filename: string, languageId: string, text: string, lines: { start: number; end: number }): AskAboutCodePlan {
  if (text.length > MAX_CODE_CONTEXT_CHARS) {
    return { kind: 'refuse', message: l10n.t('The selection is too large to send ({0} characters; the limit is {1}). Select less.', text.length.toLocaleString('en-US'), limitText()) };
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
    l10n.t('{0} would bring the code sent with this question to {1} characters; the limit is {2}. ', codeLabel(code), total.toLocaleString('en-US'), limitText()) +
    l10n.t('Remove a chip above the message box, or select less.')
  );
}

export function sameCode(a: NewCodeContext, b: NewCodeContext): boolean {
  return a.filename === b.filename && a.lines?.start === b.lines?.start && a.lines?.end === b.lines?.end;
}

/** "release.py · lines 3-9", or "release.py" for a whole file: chips, messages and the request alike. */
export function codeLabel(code: Pick<CodeContext, 'filename' | 'lines'>): string {
  return code.lines ? `${code.filename} · lines ${code.lines.start}-${code.lines.end}` : code.filename;
}

/** The code an Ask About command read from the active editor. */
export interface AskAboutSource {
  /** The editor's local file (absent for an untitled editor: only its text is judged). */
  path?: string;
  filename: string;
  languageId: string;
  /** The whole file (Ask About File) or the selection (Ask About Selection). */
  text: string;
  /** The selection's lines; absent for a whole file. */
  lines?: { start: number; end: number };
}

/**
 * What Ask About File / Selection does: first the chat-context rule (privateFiles.ts), which
 * refuses a private file or a private key whoever asks (the command is the user's explicit
 * choice, so a gitignored file is attached), with its one line naming the file and why;
 * then the size rules above.
 */
export async function planAskAboutCode(source: AskAboutSource, rules: PrivateFileRules): Promise<AskAboutCodePlan> {
  const decision = await chatContextDecision({ path: source.path, text: source.text, implicit: false }, rules);
  if (!decision.send) return { kind: 'refuse', message: chatContextNote(source.filename, decision) };
  return source.lines ? planAskAboutSelection(source.filename, source.languageId, source.text, source.lines) : planAskAboutFile(source.filename, source.languageId, source.text);
}
