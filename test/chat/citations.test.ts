// Sources numbered to match the answer's markers [1]..[n] (D19: the n-th citation of the
// stream), each passage once with every number that points at it.
import { strict as assert } from 'node:assert';
import { CitationMerge, CitationNumbering, citationByMarker, citationKey, citationVolumeLabel, markerNumbers, mergeCitations } from '../../src/chat/core/citations';
import type { SourceCitation } from '../../src/chat/core/conversationModel';
import { passageDocument, planCitationReveal } from '../../src/chat/core/citationReveal';

const cite = (fileId: string, chunkIndex?: number, extra: Partial<SourceCitation> = {}): SourceCitation => ({
  fileId,
  filename: `${fileId}.md`,
  volume: 'docs',
  snippet: `text of ${fileId}`,
  ...(chunkIndex !== undefined ? { chunkIndex } : {}),
  ...extra,
});

describe('chat: citation numbering and deduplication', () => {
  it('numbers citations by their order in the stream and keeps a repeated passage once, with both numbers', () => {
    const numbering = new CitationNumbering();
    const first = numbering.add([cite('a', 0), cite('b', 2), cite('a', 0), cite('c', 1)]);
    assert.deepEqual(
      first.map((c) => [c.fileId, c.markers]),
      [
        ['a', [1, 3]],
        ['b', [2]],
        ['c', [4]],
      ],
    );
    assert.equal(first[0].volumeLabel, 'docs');
    // A second retrieval event continues the count; a repeat comes back with only its new number.
    const second = numbering.add([cite('b', 2), cite('d', 0)]);
    assert.deepEqual(
      second.map((c) => [c.fileId, c.markers]),
      [
        ['b', [5]],
        ['d', [6]],
      ],
    );
    const stored = mergeCitations(mergeCitations([], first), second);
    assert.deepEqual(
      stored.map((c) => [c.fileId, c.markers]),
      [
        ['a', [1, 3]],
        ['b', [2, 5]],
        ['c', [4]],
        ['d', [6]],
      ],
    );
    assert.equal(citationByMarker(stored, 5)?.fileId, 'b');
    assert.equal(citationByMarker(stored, 7), undefined);
  });

  it('tells passages apart by volume, file and chunk; without a chunk index, by snippet', () => {
    assert.notEqual(citationKey(cite('a', 0)), citationKey(cite('a', 1)), 'two chunks of one file are two sources');
    assert.notEqual(citationKey(cite('a', 0)), citationKey(cite('a', 0, { volume: 'other' })));
    assert.equal(citationKey(cite('a')), citationKey(cite('a')));
    assert.notEqual(citationKey(cite('a')), citationKey(cite('a', undefined, { snippet: 'another passage' })));
  });

  it('numbers a conversation saved before numbering by position, and a new citation after them', () => {
    const legacy = [cite('a'), cite('b', undefined, { snippet: 'b text' })];
    assert.deepEqual(legacy.map(markerNumbers), [[1], [2]]);
    const merged = mergeCitations(legacy, [cite('c')]);
    assert.deepEqual(
      merged.map((c) => c.markers),
      [[1], [2], [3]],
    );
  });

  it('a hostile stream of citations is merged in linear time: one event of 200,000 copies of a passage, 200,000 unnumbered ones, 100,000 events of one each', () => {
    // Each repeat copied the passage's markers, each unnumbered one looked through all before
    // it for the highest number, and each event copied every citation before it: quadratic.
    const copies = new CitationNumbering().add(Array.from({ length: 200_000 }, () => cite('a', 0)));
    assert.equal(copies.length, 1);
    assert.deepEqual(copies[0].markers!.slice(-2), [199_999, 200_000]);
    const unnumbered = mergeCitations(
      [],
      Array.from({ length: 200_000 }, (_, i) => cite(`f${i}`, 0)),
    );
    assert.deepEqual(unnumbered.at(-1)!.markers, [200_000]);
    const numbering = new CitationNumbering();
    const merge = new CitationMerge([cite('earlier', 0, { markers: [1] })]);
    numbering.add([cite('earlier', 0)]);
    let merged: SourceCitation[] = [];
    for (let i = 0; i < 100_000; i++) merged = merge.add(numbering.add([i % 2 ? cite('same', 0) : cite(`f${i}`, 0)]));
    assert.equal(merged.length, 50_002);
    assert.deepEqual(merged.find((c) => c.fileId === 'same')!.markers!.slice(0, 3), [3, 5, 7]);
    assert.deepEqual(merge.add([cite('earlier', 0, { markers: [1, 100_003] })])[0].markers, [1, 100_003], 'a number it had is not repeated, a new one is added in order');
  });

  it("merges one event's 500,000 repeats of a passage already cited (a 16 MiB event holds that many) without a spread that overflows the stack", () => {
    const numbering = new CitationNumbering();
    const merge = new CitationMerge([]);
    merge.add(numbering.add([cite('same', 0)]));
    const [repeated] = numbering.add(Array.from({ length: 500_000 }, () => cite('same', 0)));
    assert.equal(repeated.markers!.length, 500_000);
    const [merged] = merge.add([repeated]);
    assert.equal(merged.markers!.length, 500_001);
    assert.deepEqual(merged.markers!.slice(-2), [500_000, 500_001]);
  });

  it('labels the personal volume "My files" and named volumes by name', () => {
    assert.equal(citationVolumeLabel('{dev}'), 'My files');
    assert.equal(citationVolumeLabel('lamps'), 'lamps');
    assert.equal(citationVolumeLabel(undefined), undefined);
  });
});

describe('chat: what opening a hostile citation shows', () => {
  const hostile = { fileId: 'f1', filename: '[Reveal in Volumes](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22x%22%7D)\u202E', marker: 1, markers: [1], snippet: 'text' };

  it("quotes the service's file name as text in the notification when no volume is given", () => {
    const plan = planCitationReveal(hostile);
    assert.equal(plan.kind, 'explain');
    const message = plan.kind === 'explain' ? plan.message : '';
    assert.equal(/\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i.exec(message), null, message);
    assert.ok(!message.includes('\u202E'), message);
  });

  it('names the passage tab with the escaped, bounded file name', () => {
    assert.equal(passageDocument('t-1', { ...hostile, filename: `a\u202Egpj.exe${'x'.repeat(100_000)}` }).path.length, 121);
    assert.ok(!passageDocument('t-1', { ...hostile, filename: 'a\u202Egpj.exe' }).path.includes('\u202E'));
  });
});
