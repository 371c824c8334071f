// Issue 26, rough edge 5: `@ksm`'s [n] markers are links and its sources open the cited
// passage, as the chat panel does. The marker linker (streamed chunks, code left alone),
// the per-answer citation book (a link names an answer and a number, never the text; anything
// that answer did not cite opens nothing), and the passage document the panel opens, over
// real HTTP against the emulator's agent.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { passageDocument } from '../../src/chat/core/citationReveal';
import { AnswerCitations, MarkerLinker, askAgent, citedFiles, citedFilesWithMarkers } from '../../src/nativeChat/core/participant';
import { useEmulator } from '../api/harness';

const link = (n: number) => `command:open?${n}`;
const linkAll = (chunks: string[]): string => {
  const linker = new MarkerLinker(link);
  return chunks.map((c) => linker.push(c)).join('') + linker.flush();
};

describe('@ksm sources: markers as links, a source opens its cited passage', () => {
  it('lists the sources of an answer citing 200,000 files, each with its first marker, in linear time', () => {
    // The first marker of each file was searched for in all citations: quadratic.
    const citations = Array.from({ length: 200_000 }, (_, i) => ({ fileId: `f${i % 100_000}`, filename: `f${i}.md`, volume: 'docs', chunkIndex: i, markers: [i + 1] }));
    const sources = citedFilesWithMarkers(citations);
    assert.equal(sources.length, 100_000);
    assert.deepEqual(sources.at(-1), { file: citedFiles(citations).at(-1), marker: 100_000 });
    assert.deepEqual(
      citedFilesWithMarkers([
        { fileId: 'a', filename: 'a.md' },
        { fileId: 'b', filename: 'b.md', volume: 'v' },
      ]).map((s) => s.marker),
      [1, 2],
      'unnumbered: by position',
    );
  });

  it('links each [n], also when a chunk boundary splits it, and leaves code and existing links alone', () => {
    assert.equal(linkAll(['See [1] and [2].']), 'See [\\[1\\]](command:open?1) and [\\[2\\]](command:open?2).');
    assert.equal(linkAll(['See [', '1', '2] end']), 'See [\\[12\\]](command:open?12) end');
    assert.equal(linkAll(['a [3']), 'a [3', 'an unfinished marker at the end stays text');
    assert.equal(linkAll(['`x[1]` and [1]']), '`x[1]` and [\\[1\\]](command:open?1)');
    assert.equal(linkAll(['``', '`\nconst a = b[1];\n``', '`\nthen [1]']), '```\nconst a = b[1];\n```\nthen [\\[1\\]](command:open?1)');
    assert.equal(linkAll(['[1](https://example.com) [x]']), '[1](https://example.com) [x]', 'a Markdown link and a non-number are not markers');
    assert.equal(linkAll(['[12345]']), '[12345]', 'only short numbers are markers');
  });

  it('opens only what that answer cited: other answers, other numbers and junk arguments open nothing', () => {
    const book = new AnswerCitations(2);
    book.add('a1', [{ fileId: 'f1', filename: 'guide.md', volume: 'team', snippet: 'the guide text', chunkIndex: 2 }]);
    book.add('a1', [{ fileId: 'f2', filename: 'notes.md', volume: 'team', snippet: 'notes', markers: [5] }]);
    assert.deepEqual(book.source('a1', 1), { fileId: 'f1', filename: 'guide.md', volume: 'team', marker: 1, markers: [1], snippet: 'the guide text', chunkIndex: 2 });
    assert.equal(book.source('a1', 5)?.filename, 'notes.md', 'numbered by the engine');
    for (const [answer, marker] of [
      ['a1', 2],
      ['a1', 0],
      ['a1', 1.5],
      ['a1', '1'],
      ['nope', 1],
      [{ toString: () => 'a1' }, 1],
      [undefined, undefined],
    ] as const) {
      assert.equal(book.source(answer, marker), undefined, `${String(answer)} ${String(marker)}`);
    }
    book.add('a2', []);
    book.add('a3', []);
    assert.equal(book.source('a1', 1), undefined, 'the oldest answer is forgotten past the capacity');
  });

  describe('over HTTP', () => {
    const h = useEmulator({ responseWords: 30 });
    const TEAM = 'team-docs';
    before(async () => {
      const dir = join(h.dir, 'sources');
      mkdirSync(dir, { recursive: true });
      const path = join(dir, 'release-process.md');
      writeFileSync(path, '# Release process\n\nThe release checklist: tag the commit, build the VSIX, publish the notes.\n');
      const [result] = await h.client().uploadFiles({ volume: TEAM, embedding: 'emu-embed', doChunking: 1, files: [{ path }] });
      assert.ok(result?.ok);
      await h.emulator.waitForIdle();
    });

    it("an agent answer's markers link to passages that open as the panel's read-only document", async () => {
      const book = new AnswerCitations();
      const linker = new MarkerLinker((n) => `command:ksm.vscodeChat.openCitation?${encodeURIComponent(JSON.stringify(['answer-1', n]))}`);
      let shown = '';
      const outcome = await askAgent({
        service: h.client(),
        agentId: 'rag-agent',
        model: 'emu-chat',
        volumes: [TEAM],
        question: 'What does the release checklist say?',
        signal: new AbortController().signal,
        emit: (e) => {
          if (e.kind === 'text') shown += linker.push(e.text);
          else if (e.kind === 'citations') book.add('answer-1', e.citations);
        },
      });
      shown += linker.flush();
      assert.deepEqual(
        citedFiles(outcome.citations).map((c) => c.filename),
        ['release-process.md'],
      );
      assert.match(shown, /\[\\\[1\\\]\]\(command:ksm\.vscodeChat\.openCitation\?%5B%22answer-1%22%2C1%5D\)/, 'the marker [1] is a link');
      assert.doesNotMatch(shown.replace(/\[\\\[\d+\\\]\]\([^)]*\)/g, ''), /\[\d+\]/, 'no marker left as plain text');
      const source = book.source('answer-1', 1);
      assert.ok(source, 'the link opens what the answer cited');
      assert.equal(source.volume, TEAM);
      const document = passageDocument('answer-1', source);
      assert.equal(document.path, '/release-process.md');
      assert.match(document.text, /release-process\.md — team-docs · .*source \[1\]/);
      assert.match(document.text, /release checklist/i, 'the cited passage itself');
    });
  });
});
