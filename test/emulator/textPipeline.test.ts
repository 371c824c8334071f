// The pure parts behind processing and answers: chunk windows overlap, the embedder is
// deterministic and normalised, and schema values satisfy their schema.
import { strict as assert } from 'node:assert';
import { chunkText } from '../../emulator/chunker';
import { cosine, embed, EMBEDDING_DIMENSIONS } from '../../emulator/embedder';
import { valueForSchema } from '../../emulator/schemaValue';

describe('emulator: chunker, embedder and schema values', () => {
  it('chunks overlap by the configured number of words and cover every word once or more', () => {
    const words = Array.from({ length: 250 }, (_, i) => `w${i}`);
    const chunks = chunkText(words.join(' \n\t '), { wordsPerChunk: 100, overlapWords: 20 }).map((c) => c.split(/\s+/));
    assert.deepEqual(
      chunks.map((c) => [c[0], c[c.length - 1]]),
      [
        ['w0', 'w99'],
        ['w80', 'w179'],
        ['w160', 'w249'],
      ],
    );
    assert.deepEqual([...new Set(chunks.flat())].sort(), [...words].sort());
    assert.deepEqual(chunkText('   \n '), []);
    assert.deepEqual(chunkText('one'), ['one']);
  });

  it('embeds deterministically into a unit vector; shared words score higher than unrelated text', () => {
    const a = embed('The harbour ferry leaves from pier seven');
    assert.equal(a.length, EMBEDDING_DIMENSIONS);
    assert.deepEqual(a, embed('the HARBOUR ferry leaves from pier seven!'));
    assert.ok(Math.abs(cosine(a, a) - 1) < 1e-6);
    const related = cosine(a, embed('which pier does the ferry leave from'));
    const unrelated = cosine(a, embed('sourdough starter needs flour'));
    assert.ok(related > 0.3, `related ${related}`);
    assert.ok(related > unrelated + 0.2, `related ${related} vs unrelated ${unrelated}`);
    assert.ok(embed('').every((v) => v === 0));
  });

  it('builds values for nested, enum, $ref and anyOf schemas', () => {
    const words = () => 'text';
    const value = valueForSchema(
      {
        type: 'object',
        properties: {
          kind: { enum: ['a', 'b'] },
          when: { type: 'string', format: 'date-time' },
          ratio: { type: 'number', minimum: 0.5, maximum: 0.9 },
          point: { $ref: '#/$defs/point' },
          either: { anyOf: [{ type: 'integer', minimum: 3 }, { type: 'string' }] },
          maybe: { type: ['null', 'boolean'] },
          list: { type: 'array', items: { type: 'string', maxLength: 2 }, minItems: 3 },
        },
        $defs: { point: { type: 'object', properties: { x: { type: 'integer' } } } },
      },
      words,
    );
    assert.deepEqual(value, { kind: 'a', when: '2024-01-01T00:00:00Z', ratio: 0.9, point: { x: 1 }, either: 3, maybe: true, list: ['te', 'te', 'te'] });
  });
});
