// CPU time from Linux's /proc for the upload benches (issue 21): on a 2-core machine the
// client and the emulator share the cores, so a client's wall time against curl follows both
// processes' CPU, and a bench that prints only wall times hides why a side is slow. A run's
// client CPU is read as what this process's reaped children gained (curl, and `ksm` with
// anything it waited for); the emulator's as what its own process gained. No other platform
// has /proc: there these read undefined and the bench prints no CPU line.
import { readFileSync } from 'node:fs';

/** USER_HZ: /proc counts CPU in ticks of 1/100 s on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export interface ProcessCpu {
  /** User + system time of the process itself. */
  ownMs: number;
  /** User + system time of its children that it has waited for (and of theirs). */
  reapedChildrenMs: number;
}

/**
 * The CPU fields of a /proc/<pid>/stat line. Its second field, the command name in
 * parentheses, may itself hold spaces and parentheses, so the fields are counted from the
 * last `)`: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
 */
export function parseProcStat(line: string): ProcessCpu {
  const rest = line
    .slice(line.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  const field = (n: number) => {
    const value = Number(rest[n - 3]);
    if (!Number.isInteger(value) || value < 0) throw new Error(`field ${n} of a /proc stat line is not a tick count: ${line}`);
    return value;
  };
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return { ownMs: ms(field(14) + field(15)), reapedChildrenMs: ms(field(16) + field(17)) };
}

/** The process's CPU so far (this process when `pid` is left out); undefined without /proc or once the process is gone. */
export function readProcessCpu(pid?: number): ProcessCpu | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid ?? 'self'}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}
