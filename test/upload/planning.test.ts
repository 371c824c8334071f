// Naming of "keep both" copies and the text sniffing that decides what a filter can read.
import { strict as assert } from 'node:assert';
import { planUploads, freeName } from '../../src/upload/core/duplicatePlanning';
import { looksLikeText } from '../../src/common/core/readableFiles';

describe('upload: planning rules', () => {
  it('"keep both" picks the first free "name (n).ext"', () => {
    assert.equal(freeName('report.pdf', new Set(['report.pdf'])), 'report (2).pdf');
    assert.equal(freeName('report.pdf', new Set(['report (2).pdf']), new Set(['report (3).pdf'])), 'report (4).pdf');
    assert.equal(freeName('Makefile', new Set()), 'Makefile (2)');
    assert.equal(freeName('.env', new Set()), '.env (2)');
  });

  it('two selected files with the same base name are both kept, without a question', async () => {
    const plan = await planUploads(
      [
        { path: '/a/readme.md', size: 1, displayPath: 'a/readme.md' },
        { path: '/b/readme.md', size: 1, displayPath: 'b/readme.md' },
      ],
      [],
      async () => assert.fail('not asked'),
    );
    assert.deepEqual(
      plan.uploads.map((u) => u.source.filename),
      ['readme.md', 'readme (2).md'],
    );
  });

  it('recognises UTF-8 text and refuses NUL bytes and invalid sequences', () => {
    assert.ok(looksLikeText(Buffer.from('plain text, ünïcödé ✓')));
    const cut = Buffer.from('ab✓');
    assert.ok(looksLikeText(cut.subarray(0, cut.length - 1)), 'a character cut at the end of the sample is fine');
    assert.ok(!looksLikeText(Buffer.from([0x41, 0x00, 0x42])));
    assert.ok(!looksLikeText(Buffer.from([0xff, 0xfe, 0x41])));
    assert.ok(!looksLikeText(Buffer.from([0x41, 0xc0, 0xaf, 0x42])), 'an overlong form');
    assert.ok(!looksLikeText(Buffer.from([0x41, 0xed, 0xa0, 0x80, 0x42])), 'an encoded surrogate');
    assert.ok(!looksLikeText(Buffer.from([0x41, 0xe2, 0x41])), 'a character cut in the middle');
  });
});
