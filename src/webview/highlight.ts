// highlight.js core with a handful of common languages: the full build is ~1 MB, which
// alone would break the VSIX size target.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { highlightBudget, type HighlightBudget } from './highlightBudget';

const languages = { bash, cpp, csharp, css, diff, go, java, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, definition] of Object.entries(languages)) hljs.registerLanguage(name, definition);

/** Auto-detection runs every grammar over the text; past this size it costs more than it helps. */
const AUTO_DETECT_LIMIT = 2_000;

/** Returns escaped, highlighted HTML, or '' to let markdown-it escape the code itself (unknown language, or `budget` spent). */
export function highlightCode(code: string, language: string, budget: HighlightBudget = highlightBudget()): string {
  const known = language !== '' && hljs.getLanguage(language) !== undefined;
  const detect = language === '' && code.length <= AUTO_DETECT_LIMIT;
  if (!(known || detect) || budget.highlightedBlocks <= 0 || budget.highlightedChars < code.length || (detect && budget.autoDetectedBlocks <= 0)) return '';
  budget.highlightedBlocks--;
  budget.highlightedChars -= code.length;
  if (detect) budget.autoDetectedBlocks--;
  try {
    return known ? hljs.highlight(code, { language, ignoreIllegals: true }).value : hljs.highlightAuto(code).value;
  } catch {
    // A grammar failing on odd input is not worth a broken answer: fall back to plain text.
  }
  return '';
}
