// The ids search returns and fetch takes are parsed strictly: a model (or a page that
// injected text into one) may hand fetch anything.
import { strict as assert } from 'node:assert';
import { parsePassageId, passageId } from '../../src/volumes/core/retrieval';

describe('retrieval: passage ids', () => {
  it('round-trips volume, file id and chunk, the personal volume and odd names included', () => {
    for (const [volume, fileId, chunk] of [
      ['team-docs', '02103f77-8645-4002-ae13-6de6e94009e5', 0],
      ['{dev@example.com}', 'abc', 12],
      ['a.b_c-d', 'x y/z#?', undefined],
    ] as const) {
      const id = passageId(volume, fileId, chunk);
      assert.match(id, /^ksm:\/\/[^/#?\s]+\/[^/#?\s]+(#\d+)?$/);
      assert.deepEqual(parsePassageId(id), { volume, fileId, ...(chunk !== undefined ? { chunkIndex: chunk } : {}) });
    }
  });

  it('refuses anything else', () => {
    for (const bad of [
      undefined,
      42,
      '',
      'nonsense',
      'http://evil/x',
      'ksm://team-docs',
      'ksm://team-docs/',
      'ksm://team-docs/a/b',
      'ksm://team-docs/a#x',
      'ksm://team-docs/a#-1',
      'ksm://%E0%A4%A/abc',
      'ksm://te%0Aam/abc',
      'ksm://team/a b',
      `ksm://${'v'.repeat(401)}/a`,
      'ksm://team/a#12345678',
    ]) {
      assert.equal(parsePassageId(bad), undefined, String(bad));
    }
  });
});
