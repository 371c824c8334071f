// How `ksm` talks: results on stdout (one JSON document with --json, short lines otherwise),
// progress on stderr as a bar only when stderr is a terminal (CI logs get no redraw noise).
import { SingleBar, Presets } from 'cli-progress';

export interface Output {
  json: boolean;
  /** A human line on stdout (suppressed with --json). */
  line(text: string): void;
  /** The one JSON document of a --json run. */
  document(value: unknown): void;
  /** A progress bar on a TTY; nothing otherwise. */
  progress(total: number, label: string): Progress;
}

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

export function createOutput(options: { json: boolean; stdout?: NodeJS.WriteStream; stderr?: NodeJS.WriteStream }): Output {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  let bar: SingleBar | undefined;
  return {
    json: options.json,
    line(text) {
      if (options.json) return;
      if (bar) bar.stop(); // a line never lands in the middle of the bar
      stdout.write(text + '\n');
      bar = undefined;
    },
    document(value) {
      stdout.write(JSON.stringify(value, null, 2) + '\n');
    },
    progress(total, label) {
      if (!stderr.isTTY || total === 0) return { update: () => undefined, stop: () => undefined };
      const own = new SingleBar({ format: `${label} [{bar}] {value}/{total} files`, stream: stderr, hideCursor: true, clearOnComplete: true }, Presets.shades_classic);
      own.start(total, 0);
      bar = own;
      return {
        update: (done, newTotal) => {
          if (newTotal !== undefined) own.setTotal(newTotal);
          own.update(done);
        },
        stop: () => own.stop(),
      };
    },
  };
}
