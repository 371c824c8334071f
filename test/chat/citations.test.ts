// Sources numbered to match the answer's markers [1]..[n] (D19: the n-th citation of the
// stream), each passage once with every number that points at it.
import { strict as assert } from 'node:assert';
import { CitationNumbering, citationByMarker, citationKey, citationVolumeLabel, markerNumbers, mergeCitations } from '../../src/chat/core/citations';
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
