// The editor's PairingRunner (src/sync/vscode/syncRunner.ts) left watching, under a stub
// `vscode` module (test/support/vscodeModuleStub.ts) against the emulator over real HTTP:
// the watcher's events are fired by the test, the quiet period is the setting's shortest.
import { strict as assert } from 'node:assert';
import { mkdtempSync, realpathSync } from 'node:fs';
import { rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installVscodeStub, type VscodeStub } from '../support/vscodeModuleStub';
import { until } from '../support/until';
import { freshVolume, listedFiles, startFixture, writeTree, type EmulatorFixture } from '../volumes/volumesEmulator';
import type { ExtensionServices } from '../../src/common/vscode/services';
import type { PairingRunner as Runner } from '../../src/sync/vscode/syncRunner';
import { WATCH_LIMITS, type WatchLimits } from '../../src/sync/core/watchBatcher';
import { editorRecordName } from '../../src/sync/core/folderManifest';
import { acquireSyncLock } from '../../src/sync/core/lock';
import { describeSyncState } from '../../src/sync/vscode/syncStatusText';

describe('sync in the editor: a watched pairing left running', function () {
  let fx: EmulatorFixture;
  let vs: VscodeStub;
  let PairingRunner: typeof Runner;
  let storage: string;
  before(async () => {
    vs = installVscodeStub();
    ({ PairingRunner } = await import('../../src/sync/vscode/syncRunner'));
    fx = await startFixture(5);
    storage = mkdtempSync(join(fx.workDir, 'global-storage-'));
    vs.settings['ksm.baseUrl'] = fx.emulator.url;
    vs.settings['ksm.upload.embeddingModel'] = 'emu-embed';
    vs.settings['ksm.sync.watchDelayMs'] = 100;
    vs.pick = (items) => items.find((item) => item.action === 'apply'); // the preview: Apply
  });
  after(async () => fx.close());

  function runnerFor(folder: string, volume: string, deleteRemoved: boolean, workspace = { root: folder, paired: '.' }, limits: WatchLimits = WATCH_LIMITS) {
    const logged: string[] = [];
    const summaries: number[] = [];
    const services = {
      context: { globalStorageUri: { fsPath: storage }, storageUri: undefined, subscriptions: [] },
      log: { info: (line: string) => logged.push(line), warn: (line: string) => logged.push(line), error: (line: string) => logged.push(line) },
      getClient: () => fx.client,
    } as unknown as ExtensionServices;
    vs.workspace.workspaceFolders = [{ uri: { scheme: 'file', fsPath: workspace.root } }];
    const runner = new PairingRunner(
      { folder: workspace.paired, volume, deleteRemoved, watch: true },
      realpathSync(folder),
      services,
      {
        onState: () => undefined,
        onApplied: () => undefined,
        showSummary: (_runner, summary) => void summaries.push(summary.failed),
      },
      limits,
    );
    return { runner, logged, summaries, watcher: vs.watchers[vs.watchers.length - 1], plans: () => logged.filter((l) => / unchanged \(manifest /.test(l)).length };
  }

  it('after a reload (a new runner for a pairing synced before), a save syncs by itself without a manual sync first', async () => {
    const folder = mkdtempSync(join(fx.workDir, 'reload-'));
    const volume = freshVolume('reload');
    await writeTree(folder, { 'a.md': 'first', 'b.md': 'bee' });
    const first = runnerFor(folder, volume, false);
    await first.runner.sync();
    assert.equal((await listedFiles(fx, volume)).length, 2);
    first.runner.dispose(); // the window reloads

    const again = runnerFor(folder, volume, false);
    await writeFile(join(folder, 'a.md'), 'edited after the reload');
    again.watcher.fire('change', join(folder, 'a.md'));
    // Was: no run until the user synced by hand once in this window ("1 pending" all day).
    await until(() => again.runner.state.kind === 'inSync');
    const listed = await listedFiles(fx, volume);
    assert.deepEqual(listed.map((f) => [f.filename, f.filesize]).sort(), [
      ['a.md', 'edited after the reload'.length],
      ['b.md', 3],
    ]);
    again.runner.dispose();
  });

  it('a deletion waiting for review is offered once, not again at every later save', async () => {
    const folder = mkdtempSync(join(fx.workDir, 'review-'));
    const volume = freshVolume('review');
    await writeTree(folder, Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.md`, `file ${i}`])));
    const { runner, watcher, plans } = runnerFor(folder, volume, true);
    await runner.sync();
    const offered = () => vs.messages.filter((m) => m.includes(' is ready: ')).length;
    const before = offered();
    await rm(join(folder, 'f0.md'));
    watcher.fire('delete', join(folder, 'f0.md'));
    await until(() => offered() === before + 1);
    for (let i = 1; i <= 3; i++) {
      const planned = plans();
      await writeFile(join(folder, `f${i}.md`), `edited ${i}`);
      watcher.fire('change', join(folder, `f${i}.md`));
      await until(() => plans() > planned && runner.state.kind !== 'syncing');
    }
    assert.equal(offered(), before + 1, 'one offer for the waiting review (was one per save)');
    assert.equal(runner.state.kind, 'pending');
    runner.dispose();
  });

  it('a synced file named like a `dir/` line of .gitignore (a file `build` under `build/`): its deletion starts a watch run by itself', async () => {
    const folder = mkdtempSync(join(fx.workDir, 'dirline-'));
    const volume = freshVolume('dirline');
    await writeTree(folder, { '.gitignore': 'build/\n', build: 'a file: git keeps it', 'a.md': 'kept' });
    const { runner, watcher, plans } = runnerFor(folder, volume, true);
    await runner.sync();
    assert.deepEqual((await listedFiles(fx, volume)).map((f) => f.filename).sort(), ['a.md', 'build']);
    const offered = () => vs.messages.filter((m) => m.includes(' is ready: ') && m.includes('1 to delete')).length;
    const planned = plans();
    const before = offered(); // earlier tests' offers stay in the stub's messages
    await rm(join(folder, 'build'));
    watcher.fire('delete', join(folder, 'build'));
    // Was: no run (the gone path might have been a folder `build/`), the deletion unnoticed until some other change.
    await until(() => plans() > planned && offered() === before + 1);
    runner.dispose();
  });

  it("a log appended every few seconds is sent by watch at most once per WATCH_LIMITS.fileIntervalMs, not replaced at every append; the user's own run takes it", async () => {
    const limits = { ...WATCH_LIMITS, fileIntervalMs: 60 * 60_000 }; // however slow the machine, the appends below come within it
    const folder = mkdtempSync(join(fx.workDir, 'log-'));
    const volume = freshVolume('log');
    await writeTree(folder, { 'server.log': 'line 0\n', 'notes.md': 'notes' });
    const { runner, watcher, logged, plans } = runnerFor(folder, volume, false, undefined, limits);
    await runner.sync();
    let text = 'line 0\n';
    const append = async (i: number) => {
      const planned = plans();
      text += `line ${i}\n`;
      await writeFile(join(folder, 'server.log'), text);
      watcher.fire('change', join(folder, 'server.log'));
      await until(() => plans() > planned && runner.state.kind !== 'syncing');
    };
    await append(1); // the first change after the user's run: sent after the quiet period, as before
    const sentSize = text.length;
    assert.deepEqual((await listedFiles(fx, volume)).find((f) => f.filename === 'server.log')?.filesize, sentSize);
    const replaced = () => logged.filter((l) => l.includes('server.log replaced')).length;
    const before = replaced();
    for (let i = 2; i <= 4; i++) await append(i);
    assert.equal(replaced(), before, `no copy sent for each append (${replaced() - before} sent)`);
    const listed = await listedFiles(fx, volume);
    assert.deepEqual(
      listed.map((f) => [f.filename, f.filesize]).sort(),
      [
        ['notes.md', 5],
        ['server.log', sentSize],
      ],
      'the copy sent stays, one copy of each file',
    );
    assert.deepEqual(runner.state, { kind: 'pending', count: 1, waiting: { files: 1, intervalMs: limits.fileIntervalMs } });
    assert.match(describeSyncState(runner.state), /at most once every 3600 s$/, "the status names this runner's interval, not the default's");
    assert.ok(
      logged.some((l) => l.includes('1 changed file(s) wait') && l.includes('server.log')),
      'the log says why it waits',
    );
    // A save of another file is not held by the log's wait.
    await writeFile(join(folder, 'notes.md'), 'notes, edited');
    const planned = plans();
    watcher.fire('change', join(folder, 'notes.md'));
    await until(() => plans() > planned && runner.state.kind !== 'syncing');
    assert.equal((await listedFiles(fx, volume)).find((f) => f.filename === 'notes.md')?.filesize, 'notes, edited'.length);
    await runner.sync(); // the user's own run takes everything
    assert.equal((await listedFiles(fx, volume)).find((f) => f.filename === 'server.log')?.filesize, text.length);
    assert.equal(runner.state.kind, 'inSync');
    runner.dispose();
  });

  it('a file named with a newline and an escape sequence is logged on one line, escaped', async () => {
    const folder = mkdtempSync(join(fx.workDir, 'names-'));
    const volume = freshVolume('names');
    const forged = 'a.md\n2026-11-27 09:00:00.000 [error] [sync] the API key is ksm-\u001b[2Jforged.md';
    await writeTree(folder, { 'ok.md': 'fine', [forged]: 'hostile name' });
    const { runner, logged } = runnerFor(folder, volume, false);
    await runner.sync();
    const lines = logged.filter((l) => l.includes('forged.md'));
    assert.equal(lines.length, 1, 'the file has its line');
    assert.ok(!/[\n\u001b]/.test(lines[0]), `no newline or escape reaches the log: ${JSON.stringify(lines[0])}`);
    assert.ok(
      logged.every((l) => !l.includes('\n')),
      'no logged line holds a newline',
    );
    runner.dispose();
  });

  it('Stop Syncing (the runner disposed) mid-upload cancels the run: no batch is sent after it, and the next run ends with one copy of each file', async () => {
    const folder = mkdtempSync(join(fx.workDir, 'stop-'));
    const volume = freshVolume('stop');
    await writeTree(folder, { 'seed.md': 'seed' });
    const first = runnerFor(folder, volume, false);
    await first.runner.sync();
    await writeTree(folder, Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`n${i}.md`, `new ${i}`])));
    fx.emulator.faults.add({ kind: 'hold', path: '/ksm/rag/v5/files', method: 'POST', times: 3 });
    const running = first.runner.sync();
    await until(() => fx.emulator.faults.held === 3); // three batches of 20 on the wire
    first.runner.dispose(); // Stop Syncing
    fx.emulator.faults.release();
    await running;
    fx.emulator.faults.clear();
    const stored = (await listedFiles(fx, volume)).length;
    assert.ok(stored <= 61, `no batch sent after the stop (${stored - 1} of 100 stored)`);
    const next = runnerFor(folder, volume, false);
    await next.runner.sync();
    const names = (await listedFiles(fx, volume)).map((f) => f.filename);
    assert.equal(names.length, 101);
    assert.equal(new Set(names).size, 101, 'one copy of each');
    next.runner.dispose();
  });

  it('the service failing for a while: the watch run is retried by itself (no new save), the failure told once, the edit synced when it is back', async () => {
    const limits = { ...WATCH_LIMITS, firstRetryMs: 100 }; // the backoff's shape is test/sync/watch.test.ts's; here only that the runner retries
    try {
      const folder = mkdtempSync(join(fx.workDir, 'outage-'));
      const volume = freshVolume('outage');
      await writeTree(folder, { 'a.md': 'first' });
      const { runner, watcher, summaries } = runnerFor(folder, volume, false, undefined, limits);
      await runner.sync();
      summaries.length = 0;
      // Two runs' worth of 503s: each run's batch and its one retry.
      fx.emulator.faults.add({ kind: 'status', status: 503, path: '/ksm/rag/v5/files', method: 'POST', times: 4 });
      await writeFile(join(folder, 'a.md'), 'edited during the outage');
      watcher.fire('change', join(folder, 'a.md'));
      while (!(await listedFiles(fx, volume)).some((f) => f.filesize === 'edited during the outage'.length)) await new Promise((resolve) => setTimeout(resolve, 20));
      await until(() => runner.state.kind === 'inSync');
      assert.deepEqual(summaries, [1], `one failure summary for the outage, none for the retry that failed again (${JSON.stringify(summaries)})`);
      runner.dispose();
    } finally {
      fx.emulator.faults.clear();
    }
  });

  for (const status of [503, 401]) {
    it(`a watch run whose listing is refused (${status}) tells the user once, not per retry, and syncs the edit once the service answers`, async () => {
      const limits = { ...WATCH_LIMITS, firstRetryMs: 100 };
      try {
        const folder = mkdtempSync(join(fx.workDir, `plan-${status}-`));
        const volume = freshVolume(`plan${status}`);
        await writeTree(folder, { 'a.md': 'first' });
        const { runner, watcher, logged } = runnerFor(folder, volume, false, undefined, limits);
        await runner.sync();
        const told = () => vs.messages.filter((m) => m.startsWith('Sync of ') && m.includes(' failed (it is tried again by itself): ')).length;
        const before = told();
        fx.emulator.faults.add({ kind: 'status', status, path: '/ksm/rag/v5/files', method: 'GET', times: 1000 });
        await writeFile(join(folder, 'a.md'), 'edited while refused');
        watcher.fire('change', join(folder, 'a.md'));
        const failed = () => logged.filter((l) => typeof l === 'string' && l.includes('the watch sync failed (')).length; // reportError logs the Error itself too
        await until(() => failed() >= 3); // the first run and two retries
        assert.equal(runner.state.kind, 'error');
        assert.equal(told() - before, 1, `told once (${told() - before} notifications)`);
        fx.emulator.faults.clear();
        while (!(await listedFiles(fx, volume)).some((f) => f.filesize === 'edited while refused'.length)) await new Promise((resolve) => setTimeout(resolve, 20));
        await until(() => runner.state.kind === 'inSync');
        assert.equal(told() - before, 1);
        runner.dispose();
      } finally {
        fx.emulator.faults.clear();
      }
    });
  }

  it("a paired folder swapped for a link to a folder outside while the run waits for another window's lock: nothing outside is read or sent", async () => {
    const root = mkdtempSync(join(fx.workDir, 'swap-'));
    const docs = join(root, 'docs');
    const outside = mkdtempSync(join(fx.workDir, 'outside-'));
    const volume = freshVolume('swap');
    await writeTree(docs, { 'guide.md': 'the guide' });
    await writeTree(outside, { 'credentials.md': 'aws_secret_access_key = outside-the-workspace' });
    const { runner, logged } = runnerFor(docs, volume, false, { root, paired: 'docs' });
    await runner.sync();
    // Another window holds this pairing's lock (the same record in the global storage).
    const record = join(storage, 'sync', editorRecordName(realpathSync(docs), volume, fx.emulator.url));
    const release = await acquireSyncLock(record, { what: 'the other window', waitMs: 0 });
    await writeFile(join(docs, 'guide.md'), 'the guide, edited');
    const running = runner.sync().catch((error: unknown) => error);
    await until(() => logged.some((l) => l.includes('another window is syncing')));
    // Meanwhile a checkout (or anyone who can write the workspace) puts a link in the folder's place.
    await rm(docs, { recursive: true });
    await symlink(outside, docs);
    await release();
    await running;
    const names = (await listedFiles(fx, volume)).map((f) => f.filename);
    assert.deepEqual(names, ['guide.md'], 'nothing from outside the workspace was sent');
    assert.equal(runner.state.kind, 'error');
    runner.dispose();
  });
});
