// How `ksm` talks: results on stdout (one JSON document with --json, one JSON record per
// line as things happen with --json-lines, short lines otherwise), progress on stderr as one
// line redrawn in place, only when stderr is a terminal (CI logs get no redraw noise) and
// not with --quiet / --no-progress. Every name printed in a human line goes through
// `shown()` (control characters and newlines escaped), so a file name cannot forge lines
// or move the cursor; and every human line as a whole through `shownText()`, so a field
// that missed it (an id, a status, the service's own error text) still cannot send a
// terminal escape.

import { shown } from '../common/core/untrustedText';

export { shown };

/**
 * One file's record, the same for `ksm upload` and `ksm sync`: a line of `--json-lines` as the
 * file is answered, and an entry of `--json`'s `results`. Field names follow `ksm ls --json`
 * (the service's `uuid` and `filename`), so a script can join the two. README "Command line"
 * lists the fields.
 */
export interface FileRecord {
  /** The path as given to `ksm upload`, or relative to the synced folder. */
  path: string;
  /**
   * `kept`: `ksm sync` without --delete, a file removed from the folder and left in the volume.
   * `excluded`: left out by the folder's own rules (exclude and include patterns, `.gitignore`,
   * the ignore file itself; `SkippedFile.excluded`); `skipped`: held but not sent (a link, a
   * credential, too large, binary, a name already there).
   */
  action: 'uploaded' | 'replaced' | 'deleted' | 'skipped' | 'excluded' | 'kept' | 'failed' | 'cancelled';
  /** The name the service stores it under, when the service has the file. */
  filename?: string;
  uuid?: string;
  /** Why it was skipped, excluded, kept, failed or cancelled. */
  reason?: string;
}

export interface Output {
  json: boolean;
  /** A human line on stdout (suppressed with --json, --json-lines and --quiet). */
  line(text: string): void;
  /** A line that says something went wrong or was skipped: shown even with --quiet (on stderr then). */
  notice(text: string): void;
  /** The one JSON document of a --json run. */
  document(value: unknown): void;
  /** One JSON record (a line) of a --json-lines run; nothing otherwise. */
  record(value: unknown): void;
  /** A progress line on a TTY; nothing otherwise. */
  progress(total: number, label: string): Progress;
}

export interface Progress {
  update(done: number, total?: number): void;
  /** Erases the line (the summary line says how it ended). */
  stop(): void;
}

export interface OutputOptions {
  json: boolean;
  jsonLines?: boolean;
  quiet?: boolean;
  progress?: boolean;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WriteStream;
}

/** Text as printed (a passage, an answer): like `shown()` but line breaks and tabs kept. */
export function shownText(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/\r$/, '').split('\t').map(shown).join('\t'))
    .join('\n');
}

export function createOutput(options: OutputOptions): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const machine = options.json || Boolean(options.jsonLines);
  let bar: { text: () => string } | undefined;
  const clearBar = () => {
    if (bar) stderr.write('\r\x1b[2K');
  };
  const drawBar = () => {
    if (bar) stderr.write(`\r\x1b[2K${bar.text()}`);
  };
  return {
    json: machine,
    line(text) {
      if (machine || options.quiet) return;
      clearBar();
      stdout.write(shownText(text) + '\n');
      drawBar();
    },
    notice(text) {
      if (machine) return;
      clearBar();
      (options.quiet ? stderr : stdout).write(shownText(text) + '\n');
      drawBar();
    },
    document(value) {
      if (options.jsonLines) return;
      stdout.write(JSON.stringify(value, null, 2) + '\n');
    },
    record(value) {
      if (options.jsonLines) stdout.write(JSON.stringify(value) + '\n');
    },
    progress(total, label) {
      if (!stderr.isTTY || total === 0 || options.progress === false || options.quiet) return { update: () => undefined, stop: () => undefined };
      let done = 0;
      let all = total;
      let last = 0;
      // Nothing counted yet (a first sync while its folder is read): no '0/0 files (100%)'.
      const own = { text: () => (all ? `${label}: ${done}/${all} files (${Math.floor((done / all) * 100)}%)` : `${label}…`) };
      bar = own;
      drawBar();
      return {
        update: (value, newTotal) => {
          done = value;
          if (newTotal !== undefined) all = newTotal;
          const now = Date.now();
          if (now - last < 80 && done < all) return; // a redraw per frame at most
          last = now;
          drawBar();
        },
        stop: () => {
          clearBar();
          if (bar === own) bar = undefined;
        },
      };
    },
  };
}
