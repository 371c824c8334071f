// What the upload questions remember and how it orders them (src/upload/core/uploadMemory.ts).
import { strict as assert } from 'node:assert';
import { chunkingOrder, rememberedChunking, RECENT_VOLUMES_KEPT, volumeChoices, withChunking, withRecentVolume } from '../../src/upload/core/uploadMemory';

describe('upload: remembered choices', () => {
  it('offers recently used volumes first, most recent first, then My files, then the list in settings order', () => {
    const choices = volumeChoices('{me}', ['alpha', 'beta', 'gamma'], ['gamma', 'alpha']);
    assert.deepEqual(
      choices.map((c) => c.volume),
      ['gamma', 'alpha', '{me}', 'beta'],
    );
    assert.deepEqual(
      choices.map((c) => c.recent),
      [true, true, false, false],
    );
    assert.deepEqual(
      choices.map((c) => c.personal),
      [false, false, true, false],
    );
  });

  it('leaves out recent volumes no longer in the view, duplicates and stored junk', () => {
    const choices = volumeChoices('{me}', ['alpha', '{me}'], ['removed', '{me}', 7, 'alpha', '{me}']);
    assert.deepEqual(
      choices.map((c) => c.volume),
      ['{me}', 'alpha'],
      'the personal volume is listed once',
    );
    assert.deepEqual(
      choices.map((c) => c.recent),
      [true, true],
    );
    assert.deepEqual(
      volumeChoices(undefined, ['alpha'], 'not a list').map((c) => c.volume),
      ['alpha'],
    );
    assert.deepEqual(volumeChoices(undefined, [], ['alpha']), []);
  });

  it('moves the volume just used to the front and keeps only the latest ten', () => {
    assert.deepEqual(withRecentVolume(['a', 'b', 'c'], 'b'), ['b', 'a', 'c']);
    assert.deepEqual(withRecentVolume(undefined, 'x'), ['x']);
    const many = Array.from({ length: RECENT_VOLUMES_KEPT }, (_, i) => `v${i}`);
    const after = withRecentVolume(many, 'new')!;
    assert.equal(after.length, RECENT_VOLUMES_KEPT);
    assert.equal(after[0], 'new');
    assert.ok(!after.includes(`v${RECENT_VOLUMES_KEPT - 1}`), 'the oldest dropped off');
    // A volume used, then another, comes second in the next pick.
    const state = withRecentVolume(withRecentVolume([], 'alpha'), 'beta')!;
    assert.deepEqual(
      volumeChoices(undefined, ['alpha', 'beta', 'gamma'], state).map((c) => c.volume),
      ['beta', 'alpha', 'gamma'],
    );
  });

  it('remembers the processing choice per volume and offers it first', () => {
    let remembered: unknown = undefined;
    assert.equal(rememberedChunking(remembered, 'alpha'), undefined, 'nothing chosen yet: the setting decides');
    remembered = withChunking(remembered, 'alpha', 2);
    remembered = withChunking(remembered, 'beta', 0);
    assert.equal(rememberedChunking(remembered, 'alpha'), 2);
    assert.equal(rememberedChunking(remembered, 'beta'), 0, 'store only (0) is a remembered choice, not "nothing"');
    assert.equal(rememberedChunking(remembered, 'gamma'), undefined);
    remembered = withChunking(remembered, 'alpha', 1);
    assert.deepEqual(remembered, { alpha: 1, beta: 0 });
    assert.deepEqual(chunkingOrder(2), [2, 1, 0]);
    assert.deepEqual(chunkingOrder(0), [0, 1, 2]);
    assert.deepEqual(chunkingOrder(1), [1, 2, 0]);
  });

  it('ignores stored processing values that are not choices (kept as stored for the version that wrote them), and names like Object keys', () => {
    const stored = { alpha: 5, beta: '1', gamma: 2 };
    assert.equal(rememberedChunking(stored, 'alpha'), undefined);
    assert.equal(rememberedChunking(stored, 'beta'), undefined);
    assert.equal(rememberedChunking(stored, 'toString'), undefined);
    assert.equal(rememberedChunking([1], '0'), undefined);
    assert.deepEqual(withChunking(stored, 'delta', 0), { alpha: 5, beta: '1', gamma: 2, delta: 0 });
  });
});
