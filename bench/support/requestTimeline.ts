// The emulator's request timeline for the upload benches (issue 21: where a client's time
// goes against the same server). Preloaded into the emulator process by
// startEmulatorProcess({ requestLog }); it appends one line per answered request to that
// file: start and end (ms since the epoch, sub-millisecond), method, path, status. The
// analysis reads the lines of one run: how long the client took to send its first upload, how
// long the server then had fewer than the parallelism's requests in flight (waiting on the
// client), and how long the client ran on after the last answer. Opt-in: a line per request
// costs the server a little, the same for every side.
import { openSync, readFileSync, writeSync } from 'node:fs';
import { Server } from 'node:http';

const logPath = process.env.KSM_BENCH_REQUEST_LOG;
if (logPath) {
  const log = openSync(logPath, 'a');
  const now = () => performance.timeOrigin + performance.now();
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
    if (event === 'request') {
      const [req, res] = args as [{ method?: string; url?: string }, { statusCode: number; on(event: 'finish', listener: () => void): void }];
      const started = now();
      res.on('finish', () => writeSync(log, `${started.toFixed(2)} ${now().toFixed(2)} ${req.method} ${(req.url ?? '').split('?')[0]} ${res.statusCode}\n`));
    }
    return (emit as (this: Server, event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args);
  } as typeof Server.prototype.emit;
}

export interface RunTimeline {
  /** From the client's start to the server's receiving its first upload. */
  firstUploadMs: number;
  /** From the first upload's arrival to the last upload's answer. */
  uploadSpanMs: number;
  /** Part of that span with fewer than `parallel` uploads in flight, and with none. */
  belowParallelMs: number;
  idleMs: number;
  /** From the last answer (of any request) to the client's exit (two processes' clocks: a few ms below 0 means about 0). */
  tailMs: number;
}

/** The timeline of a run that started at `startedAt` and ended at `endedAt` (ms since the epoch), from the log's lines after `fromLine`. */
export function readRunTimeline(logFile: string, fromLine: number, startedAt: number, endedAt: number, parallel: number): RunTimeline {
  const requests = readFileSync(logFile, 'utf8')
    .split('\n')
    .slice(fromLine)
    .filter(Boolean)
    .map((line) => {
      const [start, end, method] = line.split(' ');
      return { start: Number(start), end: Number(end), upload: method === 'POST' };
    });
  const uploads = requests.filter((r) => r.upload);
  if (uploads.length === 0) throw new Error('no upload request in the timeline');
  const edges = uploads
    .flatMap((r) => [
      { at: r.start, step: 1 },
      { at: r.end, step: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.step - b.step);
  let inFlight = 0;
  let belowParallelMs = 0;
  let idleMs = 0;
  for (let i = 0; i < edges.length - 1; i++) {
    inFlight += edges[i].step;
    const gap = edges[i + 1].at - edges[i].at;
    if (inFlight < parallel) belowParallelMs += gap;
    if (inFlight === 0) idleMs += gap;
  }
  const firstUpload = edges[0].at;
  const lastUploadAnswer = edges[edges.length - 1].at;
  return {
    firstUploadMs: firstUpload - startedAt,
    uploadSpanMs: lastUploadAnswer - firstUpload,
    belowParallelMs,
    idleMs,
    tailMs: endedAt - Math.max(...requests.map((r) => r.end)),
  };
}

/** How many lines the log holds now (a run's lines come after). */
export function logLineCount(logFile: string): number {
  try {
    return readFileSync(logFile, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}
