// What one answer may spend on code highlighting, apart from highlight.js itself so that Node
// tests can read the limits without loading its types (they bring the DOM's into the program).

/**
 * What one answer may spend on highlighting; past it, code is shown plain (it reads the same,
 * its toolbar too). Auto-detection runs every grammar over a block, ~0.9 ms for a one-line
 * block in headless Chromium here, a labelled one ~0.25 ms: an answer of 50,000 one-line
 * unlabelled blocks took ~20 s to draw, 2,000 of them 1.8 s. Within these an answer of
 * ordinary length is highlighted whole.
 */
export const HIGHLIGHT_LIMITS: Readonly<HighlightBudget> = Object.freeze({ autoDetectedBlocks: 100, highlightedBlocks: 2_000, highlightedChars: 1_000_000 });

/** What is left of HIGHLIGHT_LIMITS for one answer (its blocks are drawn in order, each once, against the same budget). */
export interface HighlightBudget {
  autoDetectedBlocks: number;
  highlightedBlocks: number;
  highlightedChars: number;
}

export function highlightBudget(): HighlightBudget {
  return { ...HIGHLIGHT_LIMITS };
}
