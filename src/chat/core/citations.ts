// How an answer's sources line up with the markers [1]..[n] in its text. The service numbers
// its citations by their order in the stream (D19: the n-th citation is marker [n]); the
// same passage (file and chunk) can arrive more than once, which showed as repeated,
// unnumbered chips. Each passage is kept once, with every marker number that points at it,
// so the chips read "[1] guide.md" and "[2][4] plan.md" and match the text. Pure functions,
// shared by the stream (answerStream.ts) and the engine that stores the turn.
import { servedVolumeLabel } from '../../common/core/volumeTargets';
import type { SourceCitation } from './conversationModel';

/** "My files" for the personal volume, else the volume's name (volumeTargets.ts labels it so everywhere). */
export function citationVolumeLabel(volume: string | undefined): string | undefined {
  return volume ? servedVolumeLabel(volume) : undefined;
}

/** The passage a citation points at: one file's chunk, or its snippet when the service gave no chunk index. */
export function citationKey(citation: SourceCitation): string {
  const where = citation.chunkIndex !== undefined ? `#${citation.chunkIndex}` : `~${citation.snippet ?? ''}`;
  return JSON.stringify([citation.volume ?? '', citation.fileId, where]);
}

/** The marker numbers of a stored citation; conversations saved before numbering get their position. */
export function markerNumbers(citation: SourceCitation, position: number): number[] {
  return citation.markers?.length ? citation.markers : [position + 1];
}

/**
 * Numbers the citations of one answer as they stream: `add` takes a retrieval event's list
 * in the service's order and returns what is new, each with its marker numbers; a repeat of
 * a passage already returned comes back once more with only its new number, for
 * `mergeCitations` to add to the first.
 */
export class CitationNumbering {
  private count = 0;

  add(citations: readonly SourceCitation[]): SourceCitation[] {
    const out = new Map<string, SourceCitation>();
    for (const citation of citations) {
      const number = ++this.count;
      const key = citationKey(citation);
      const pending = out.get(key);
      // In place: a copy per repeat made an event of 100,000 copies of one passage quadratic.
      if (pending) pending.markers!.push(number);
      else out.set(key, { ...citation, ...(citation.volume ? { volumeLabel: citationVolumeLabel(citation.volume) } : {}), markers: [number] });
    }
    return [...out.values()];
  }
}

/** `existing` plus `incoming`, one entry per passage, marker numbers merged in order. */
export function mergeCitations(existing: readonly SourceCitation[], incoming: readonly SourceCitation[]): SourceCitation[] {
  return new CitationMerge(existing).add(incoming);
}

type NumberedCitation = SourceCitation & { markers: number[] };

/**
 * `mergeCitations` for a stream: each `add` costs what it adds, not what came before. An
 * answer's citations arrive an event at a time (the service may send 100,000 events of one
 * citation each); merging each into a fresh copy of all before it was quadratic (minutes).
 * `add` returns the merged list, the same array each time, grown in place.
 */
export class CitationMerge {
  private readonly merged: NumberedCitation[];
  private readonly byKey = new Map<string, NumberedCitation>();
  private highest = 0;

  constructor(existing: readonly SourceCitation[]) {
    this.merged = existing.map((c, i) => ({ ...c, markers: [...markerNumbers(c, i)] }));
    for (const c of this.merged) {
      this.byKey.set(citationKey(c), c);
      for (const n of c.markers) if (n > this.highest) this.highest = n;
    }
  }

  add(incoming: readonly SourceCitation[]): SourceCitation[] {
    for (const citation of incoming) {
      const known = this.byKey.get(citationKey(citation));
      const numbers = citation.markers?.length ? citation.markers : [this.highest + 1];
      for (const n of numbers) if (n > this.highest) this.highest = n;
      if (known) {
        const last = known.markers[known.markers.length - 1] ?? 0;
        // Numbered as they stream, a repeat's numbers come after all before them: appended.
        // One push each: a spread of one event's repeats (hundreds of thousands in a 16 MiB event) overflowed the stack.
        if (isAscendingAfter(numbers, last)) for (const n of numbers) known.markers.push(n);
        else known.markers = [...new Set([...known.markers, ...numbers])].sort((a, b) => a - b);
      } else {
        const entry = { ...citation, markers: [...numbers] };
        this.merged.push(entry);
        this.byKey.set(citationKey(entry), entry);
      }
    }
    return this.merged;
  }
}

function isAscendingAfter(numbers: readonly number[], after: number): boolean {
  let previous = after;
  for (const n of numbers) {
    if (!(n > previous)) return false;
    previous = n;
  }
  return true;
}

/** The citation a marker number points at, if any. */
export function citationByMarker(citations: readonly SourceCitation[], marker: number): SourceCitation | undefined {
  return citations.find((c, i) => markerNumbers(c, i).includes(marker));
}
