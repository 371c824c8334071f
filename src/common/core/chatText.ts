// How text bound for a chat model is framed, shared by every chat front end (the panel's
// composer and "Ask About Selection", VS Code's Chat participant): the size limit of one
// message, and the fence around pasted code.

/** The longest question (or system prompt) a chat sends, in characters: the panel's composer and @ksm's question alike. */
export const MAX_TEXT_CHARS = 100_000;

/**
 * The most code one question carries as context (Ask About Selection / Active File chips,
 * all of them together), in characters: the message limit less room for the question, so
 * code and question fit in one message. A chip that would pass it is refused with this number.
 */
export const MAX_CODE_CONTEXT_CHARS = MAX_TEXT_CHARS - 2_000;

/**
 * The composer text for a piece of code: the file name, then a fenced block tagged with the
 * language. The fence is longer than any backtick run inside the code, so code that itself
 * contains ``` stays one block.
 */
export function codePrefill(fileName: string, languageId: string, code: string, lineRange?: { start: number; end: number }): string {
  const longestRun = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const where = lineRange ? ` (lines ${lineRange.start}-${lineRange.end})` : '';
  const body = code.endsWith('\n') ? code : `${code}\n`;
  return `\`${fileName}\`${where}:\n\n${fence}${languageId}\n${body}${fence}\n\n`;
}
