// The upload benches' CPU reading (bench/support/processCpu.ts): a side's client and
// emulator CPU must count what they say, or the figures that explain a miss against curl
// mislead.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { parseProcStat, readProcessCpu } from '../../bench/support/processCpu';

describe('bench process CPU', () => {
  it('reads utime, stime, cutime and cstime counted from the last parenthesis of the command name', () => {
    // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const line = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 900 10 0 0 123 45 600 78 20 0 11 0 5000 1000000 3000';
    assert.deepEqual(parseProcStat(line), { ownMs: 1680, reapedChildrenMs: 6780 });
  });

  it('refuses a line whose CPU fields are not tick counts', () => {
    assert.throws(() => parseProcStat('4242 (node) S 1 4242'), /field 14/);
  });

  it("reads a running process's own CPU, and a child's in its parent's once it is reaped", async function () {
    if (!readProcessCpu()) this.skip(); // no /proc: the bench prints no CPU line either
    const before = readProcessCpu()!;
    // Busy until it has used 300 ms of CPU by its own account (a fact about the child, whatever the machine's load), then waits for its input to end.
    const burn = "const t = process.cpuUsage(); for (let u = process.cpuUsage(t); u.user + u.system < 300_000; u = process.cpuUsage(t)); console.log('burned'); process.stdin.resume();";
    const child = spawn(process.execPath, ['-e', burn], { stdio: ['pipe', 'pipe', 'inherit'] });
    const pid = child.pid!;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    await new Promise<void>((done) => child.stdout.once('data', () => done()));
    const running = readProcessCpu(pid);
    assert.ok(running && running.ownMs >= 290, `the running child read ${running?.ownMs} ms`);
    child.stdin.end();
    await exited;
    const gained = readProcessCpu()!.reapedChildrenMs - before.reapedChildrenMs;
    assert.ok(gained >= running.ownMs, `reaped children gained ${gained} ms, the child had used ${running.ownMs} ms`);
    assert.equal(readProcessCpu(pid), undefined); // reaped: its /proc entry is gone
  });
});
