// The upload benches' CPU reading (bench/support/processCpu.ts): a side's client and
// emulator CPU must count what they say, or the figures that explain a miss against curl
// mislead.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseProcStat, readProcessCpu, readTreeCpuMs } from '../../bench/support/processCpu';

describe('bench process CPU', () => {
  it('reads ppid, utime, stime, cutime and cstime counted from the last parenthesis of the command name', () => {
    // pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const line = '4242 (node (a) b) S 1 4242 4242 0 -1 4194560 900 10 0 0 123 45 600 78 20 0 11 0 5000 1000000 3000';
    assert.deepEqual(parseProcStat(line), { ppid: 1, ownMs: 1680, reapedChildrenMs: 6780 });
  });

  it('refuses a line whose CPU fields are not tick counts', () => {
    assert.throws(() => parseProcStat('4242 (node) S 1 4242'), /field 14/);
  });

  it("reads a running process's own CPU, counts it in its parent's tree, and in its parent's reaped children once it ends", async function () {
    if (!readProcessCpu()) this.skip(); // no /proc: the benches print no CPU figure either
    const before = readProcessCpu()!;
    // Busy until it has used 300 ms of CPU by its own account (a fact about the child, whatever the machine's load), then waits for its input to end.
    const burn = "const t = process.cpuUsage(); for (let u = process.cpuUsage(t); u.user + u.system < 300_000; u = process.cpuUsage(t)); console.log('burned'); process.stdin.resume();";
    const child = spawn(process.execPath, ['-e', burn], { stdio: ['pipe', 'pipe', 'inherit'] });
    const pid = child.pid!;
    const exited = once(child, 'exit');
    try {
      await Promise.race([once(child.stdout, 'data'), exited.then(() => assert.fail('the child ended before it had burned its CPU'))]);
      const running = readProcessCpu(pid);
      assert.ok(running && running.ownMs >= 290, `the running child read ${running?.ownMs} ms`);
      assert.equal(running.ppid, process.pid);
      // This process's tree is itself and the child: at least what this process had before plus what the child has now.
      const self = readProcessCpu()!;
      const tree = readTreeCpuMs(process.pid)!;
      assert.ok(tree - (self.ownMs + self.reapedChildrenMs) >= running.ownMs, `the tree read ${tree} ms, this process ${self.ownMs + self.reapedChildrenMs} ms, the child ${running.ownMs} ms`);
      child.stdin.end();
      await exited;
      const gained = readProcessCpu()!.reapedChildrenMs - before.reapedChildrenMs;
      assert.ok(gained >= running.ownMs, `reaped children gained ${gained} ms, the child had used ${running.ownMs} ms`);
      assert.equal(readProcessCpu(pid), undefined); // reaped: its /proc entry is gone
      assert.ok(readTreeCpuMs(process.pid)! >= tree, 'the tree does not lose the time of a child that ended');
      assert.equal(readTreeCpuMs(pid), undefined);
    } finally {
      child.kill(); // a failed assertion must not leave it waiting on its input (and mocha with it)
    }
  });
});
