// The request-timeline analysis of the upload bench (bench/support/requestTimeline.ts): the
// figures a miss against curl is traced with must count what they say.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLineCount, readRunTimeline } from '../../bench/support/requestTimeline';

describe('bench request timeline', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ksm-timeline-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads one run: first upload, the time with fewer than the parallelism in flight and with none, the tail', () => {
    const log = join(dir, 'requests.log');
    // An earlier run's line, then this run (started at 1000): a listing, then uploads 1-4 with 2 in flight at most.
    writeFileSync(
      log,
      [
        '500.00 600.00 POST /ksm/rag/v5/files 200',
        '1040.00 1041.00 GET /ksm/rag/v5/files 404',
        '1050.00 1070.00 POST /ksm/rag/v5/files 200', // alone 1050-1055
        '1055.00 1075.00 POST /ksm/rag/v5/files 200', // two in flight 1055-1070
        '1080.00 1090.00 POST /ksm/rag/v5/files 200', // none in flight 1075-1080
        '1090.00 1100.00 POST /ksm/rag/v5/files 200',
      ].join('\n') + '\n',
    );
    const timeline = readRunTimeline(log, 1, 1000, 1130, 3);
    assert.equal(timeline.firstUploadMs, 50);
    assert.equal(timeline.uploadSpanMs, 50);
    assert.equal(timeline.belowParallelMs, 50); // never 3 in flight
    assert.equal(timeline.idleMs, 5);
    assert.equal(timeline.tailMs, 30);
    assert.equal(readRunTimeline(log, 1, 1000, 1130, 2).belowParallelMs, 35); // 2 in flight 1055-1070 is not below 2
    assert.equal(logLineCount(log), 6);
    assert.equal(logLineCount(join(dir, 'missing.log')), 0);
  });

  it('refuses a run with no upload in it', () => {
    const log = join(dir, 'requests.log');
    writeFileSync(log, '1040.00 1041.00 GET /ksm/rag/v5/files 200\n');
    assert.throws(() => readRunTimeline(log, 0, 1000, 1100, 3), /no upload request/);
  });
});
