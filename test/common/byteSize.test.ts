// The one byte-size format the Volumes tree, upload progress, the upload size limit and the
// chat's large-file question share: 1024-based with KB/MB labels, as VS Code shows sizes.
import { strict as assert } from 'node:assert';
import { formatBytes } from '../../src/common/core/byteSize';

describe('common: byte sizes', () => {
  it('counts in 1024s with one decimal below 10 units and whole numbers above', () => {
    const cases: Array<[number, string]> = [
      [0, '0 B'],
      [999, '999 B'],
      [1023, '1023 B'],
      [1024, '1.0 KB'],
      [1536, '1.5 KB'],
      [50 * 1024, '50 KB'],
      [1_000_000, '977 KB'],
      [1024 * 1024 - 1, '1.0 MB'],
      [1_258_291, '1.2 MB'],
      [100 * 1024 * 1024, '100 MB'],
      [5 * 1024 ** 3, '5.0 GB'],
      [3 * 1024 ** 5, '3072 TB'],
    ];
    for (const [bytes, text] of cases) assert.equal(formatBytes(bytes), text, String(bytes));
  });

  it('says it does not know rather than print a wrong size', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(formatBytes(bad), '? B');
  });
});
