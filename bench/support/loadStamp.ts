// Every line a bench prints ends with the machine's load average at that moment (issue 26):
// the machines are shared, and a figure without the load it was measured under cannot be
// compared with another. Imported first by each bench (and preloaded by scripts/bench.sh,
// so a bench that forgets still gets it); a line that already names its load is left alone.
import { cpus, loadavg } from 'node:os';
import { format } from 'node:util';

/** "load 1.52 1.30 1.10 on 2 cores" (1, 5 and 15 minutes). */
export function loadNote(): string {
  return `load ${loadavg()
    .map((load) => load.toFixed(2))
    .join(' ')} on ${cpus().length} cores`;
}

const STAMPED = Symbol.for('ksm.bench.loadStamp');
const console_ = console as Console & { [STAMPED]?: true };
if (!console_[STAMPED]) {
  console_[STAMPED] = true;
  for (const method of ['log', 'info'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const text = format(...args);
      if (text.trim() === '' || text.includes('[load ')) return original(...args);
      return original(`${text}  [${loadNote()}]`);
    };
  }
}
