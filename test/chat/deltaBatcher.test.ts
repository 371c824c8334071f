// The Chat view's one batch (src/chat/panel/deltaBatcher.ts): text, reasoning and citation
// changes wait together and leave in one flush; many citation events make one post.
import { strict as assert } from 'node:assert';
import { DeltaBatcher, type DeltaBatch } from '../../src/chat/panel/deltaBatcher';

describe('chat delta batcher: text and citations in one flush', () => {
  it('collects text and N citation changes into one batch, posted once', () => {
    const posts: DeltaBatch[] = [];
    const batcher = new DeltaBatcher((batch) => posts.push(batch), 600_000);
    batcher.add({ citations: true });
    batcher.add({ content: 'A' });
    for (let i = 0; i < 10_000; i++) batcher.add({ citations: true });
    batcher.add({ reasoning: 'r' });
    assert.equal(posts.length, 0, 'nothing before the flush');
    batcher.flush();
    batcher.flush();
    assert.deepEqual(posts, [{ content: 'A', reasoning: 'r', citations: true }]);
  });

  it('posts citations alone, and drops a waiting citation change when the caller posts the list itself', () => {
    const posts: DeltaBatch[] = [];
    const batcher = new DeltaBatcher((batch) => posts.push(batch), 600_000);
    batcher.add({ citations: true });
    batcher.flush();
    batcher.add({ content: 'tail' });
    batcher.add({ citations: true });
    batcher.flush({ dropCitations: true });
    batcher.add({ citations: true });
    batcher.flush({ dropCitations: true });
    assert.deepEqual(posts, [
      { content: '', reasoning: '', citations: true },
      { content: 'tail', reasoning: '', citations: false },
    ]);
  });

  it('flushes at once when the text waiting reaches the limit, with the citations waiting', () => {
    const posts: DeltaBatch[] = [];
    const batcher = new DeltaBatcher((batch) => posts.push(batch), 600_000, 8);
    batcher.add({ citations: true });
    batcher.add({ content: '12345678' });
    assert.deepEqual(posts, [{ content: '12345678', reasoning: '', citations: true }]);
    batcher.flush();
  });
});
