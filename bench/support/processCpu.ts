// CPU time from Linux's /proc for the upload and sync benches (issue 21): on a 2-core machine
// the client and the emulator share the cores, so a client's wall time against curl follows
// both processes' CPU, and a bench that prints only wall times hides why a side is slow. A
// run's client CPU is read as what this process's reaped children gained (curl, and `ksm`
// with anything it waited for); the emulator's as what its process tree gained (the emulator
// and its process worker). No other platform has /proc: there these read undefined and the
// benches print no CPU figure.
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: /proc counts CPU in ticks of 1/100 s on every Linux architecture Node runs on. */
const TICKS_PER_SECOND = 100;

export interface ProcessCpu {
  /** The parent's pid (field 4), to follow a process tree. */
  ppid: number;
  /** User + system time of the process itself. */
  ownMs: number;
  /** User + system time of its children that it has waited for (and of theirs). */
  reapedChildrenMs: number;
}

/**
 * The CPU fields of a /proc/<pid>/stat line. Its second field, the command name in
 * parentheses, may itself hold spaces and parentheses, so the fields are counted from the
 * last `)`: state is field 3, ppid 4, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
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
  return { ppid: field(4), ownMs: ms(field(14) + field(15)), reapedChildrenMs: ms(field(16) + field(17)) };
}

/** The process's CPU so far (this process when `pid` is left out); undefined without /proc or once the process is gone. */
export function readProcessCpu(pid?: number): ProcessCpu | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid ?? 'self'}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * CPU of `root` and every process below it so far: each one's own time and its reaped
 * children's. The sum only grows: a descendant that ends moves its time into its parent's
 * reaped-children figure, and a zombie still reads until then. Undefined without /proc.
 */
export function readTreeCpuMs(root: number | undefined): number | undefined {
  if (root === undefined) return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const processes = new Map<number, ProcessCpu>();
  for (const pid of pids) {
    const cpu = readProcessCpu(Number(pid)); // gone since the listing: not in the tree
    if (cpu) processes.set(Number(pid), cpu);
  }
  if (!processes.has(root)) return undefined;
  const inTree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, cpu] of processes) {
      if (!inTree.has(pid) && inTree.has(cpu.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  let total = 0;
  for (const pid of inTree) total += processes.get(pid)!.ownMs + processes.get(pid)!.reapedChildrenMs;
  return total;
}
