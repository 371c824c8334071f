// Drag and drop onto the Volumes tree, and revealing a file (what chat citations do), in a
// real extension host against the emulator: the drop parses a real DataTransfer and the
// files land in the volume it was dropped on; reveal pages as far as needed and selects the
// file in a real TreeView (a test-only view the runner contributes, so the extension's own
// view is left alone).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { KsmClient } from '../../src/api/client';
import { ApiKeyStore } from '../../src/common/vscode/apiKey';
import { createClientFromSettings } from '../../src/common/vscode/client';
import { Log } from '../../src/common/vscode/log';
import type { ExtensionServices } from '../../src/common/vscode/services';
import { updateSetting } from '../../src/common/vscode/settings';
import { VolumeDropController } from '../../src/volumes/vscode/volumeDrop';
import type { FileNode, VolumesNode } from '../../src/volumes/vscode/volumeNodes';
import { createVolumesTree } from '../../src/volumes/volumesFeature';
import { requiredEnv, runnerContext, silentUploadFlow, volumesApiFor } from './host';
import { until } from '../support/until';

/** Waits for VS Code to report back; bounded by mocha's timeout, not a clock of our own. */
describe('volumes: drag and drop, and reveal, in VS Code', function () {
  this.timeout(60_000);
  const suffix = randomBytes(4).toString('hex');
  const dropVolume = `itest-drop-${suffix}`;
  const revealVolume = `itest-reveal-${suffix}`;
  let services: ExtensionServices;
  let keys: ApiKeyStore;
  let log: Log;
  let client: KsmClient;
  let folder: string;
  const previous: Record<string, unknown> = {};
  const SETTINGS = ['baseUrl', 'userId', 'volumes.list', 'volumes.pageSize'];

  before(async () => {
    await vscode.extensions.getExtension('ksm.ksm-assistant')?.activate();
    const context = runnerContext();
    keys = new ApiKeyStore(context.secrets);
    await keys.set(requiredEnv('KSM_TEST_API_KEY'));
    log = new Log(vscode.window.createOutputChannel('KSM drop/reveal integration test', { log: true }));
    services = { context, log, apiKey: keys, getClient: () => createClientFromSettings(keys, log), registerCommand: () => undefined };
    client = new KsmClient({ baseUrl: requiredEnv('KSM_TEST_BASE_URL'), apiKey: async () => requiredEnv('KSM_TEST_API_KEY') });
    const config = vscode.workspace.getConfiguration('ksm');
    for (const key of SETTINGS) previous[key] = config.inspect(key)?.globalValue;
    await updateSetting('baseUrl', requiredEnv('KSM_TEST_BASE_URL'));
    await updateSetting('userId', requiredEnv('KSM_TEST_USER_ID'));
    await updateSetting('volumes.list', [dropVolume, revealVolume]);
    await updateSetting('volumes.pageSize', 3);
    // Files of the opened workspace, as the Explorer would drag them.
    folder = join(requiredEnv('KSM_TEST_WORKSPACE'), `ksm-itest-${suffix}`);
    await mkdir(folder, { recursive: true });
  });

  after(async () => {
    for (const key of SETTINGS) await updateSetting(key, previous[key]);
    await keys.clear();
    log.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  async function namesIn(volume: string): Promise<string[]> {
    const names: string[] = [];
    for await (const file of client.listAllFiles(volume)) names.push(file.filename);
    return names.sort();
  }

  it('uploads the Explorer files of a text/uri-list drop to the volume they were dropped on', async () => {
    for (const name of ['dropped-a.md', 'dropped-b.txt', 'dropped-c.md']) await writeFile(join(folder, name), `# ${name}\n`);
    const uri = (name: string) => vscode.Uri.file(join(folder, name)).toString();
    const tree = createVolumesTree(services);
    const api = volumesApiFor(tree);
    const uploadedTo: string[] = [];
    // The choices the drop's upload would ask for, given up front (as `UploadChoices` allow).
    const controller = new VolumeDropController((volume, uris) => {
      uploadedTo.push(volume);
      return silentUploadFlow(services, api).run(uris, { volume, doChunking: 1, embedding: 'emu-embed', onDuplicate: 'keepBoth' });
    });
    const transfer = (uriList: string) => {
      const data = new vscode.DataTransfer();
      data.set('text/uri-list', new vscode.DataTransferItem(uriList));
      return data;
    };
    const token = new vscode.CancellationTokenSource().token;
    try {
      const roots = await tree.getChildren();
      const target = roots.find((n) => n.kind === 'volume' && n.volume === dropVolume);
      assert.ok(target, `the view shows ${dropVolume}`);

      // What VS Code hands over: CRLF lines, a comment, and a URI that is not a local file.
      await controller.handleDrop(target, transfer(`# dragged\r\n${uri('dropped-a.md')}\r\n${uri('dropped-b.txt')}\r\nuntitled:Untitled-1\r\n`), token);
      assert.deepEqual(await namesIn(dropVolume), ['dropped-a.md', 'dropped-b.txt']);

      // Dropped on one of the volume's files: uploaded to that file's volume.
      const children = await tree.getChildren(target);
      const fileRow = children.find((n): n is FileNode => n.kind === 'file');
      assert.ok(fileRow, `the volume lists its files, not ${JSON.stringify(children)}`);
      await controller.handleDrop(fileRow, transfer(uri('dropped-c.md')), token);
      assert.deepEqual(await namesIn(dropVolume), ['dropped-a.md', 'dropped-b.txt', 'dropped-c.md']);

      // Nothing to upload: dropped beside the volumes, or nothing local.
      await controller.handleDrop(undefined, transfer(uri('dropped-a.md')), token);
      await controller.handleDrop(target, transfer('untitled:Untitled-1\r\nhttps://example.invalid/x.md'), token);
      assert.deepEqual(uploadedTo, [dropVolume, dropVolume], 'only the two drops with local files on a volume upload');
      assert.equal((await namesIn(dropVolume)).length, 3);
      assert.deepEqual(controller.dropMimeTypes, ['text/uri-list'], 'the tree accepts what the Explorer drags');
    } finally {
      tree.dispose();
    }
  });

  it('reveals a file beyond the first page, loading only the pages needed, and says when a file is not there', async () => {
    const names = Array.from({ length: 9 }, (_, i) => `page-${i + 1}.md`);
    for (const name of names) await writeFile(join(folder, name), `# ${name}\n`);
    const results = await client.uploadFiles({ volume: revealVolume, embedding: 'emu-embed', doChunking: 0, files: names.map((n) => ({ path: join(folder, n) })) });
    const ids = results.map((r) => (r.ok ? r.info.uuid : assert.fail(`seeding ${r.source.path} failed`)));

    const tree = createVolumesTree(services);
    const view = vscode.window.createTreeView<VolumesNode>('ksmIntegration.volumes', { treeDataProvider: tree, canSelectMany: true });
    const api = volumesApiFor(tree, view);
    const selected = () => view.selection.flatMap((n) => (n.kind === 'file' ? [n.file.uuid] : []));
    try {
      // The fifth file is on the second page of three.
      assert.equal(await api.revealFile(revealVolume, ids[4]!), 'revealed');
      await until(() => selected().includes(ids[4]!), 50);
      assert.deepEqual(selected(), [ids[4]], 'the revealed file is the selection');
      assert.equal(tree.listing(revealVolume).loadedCount, 6, 'two pages loaded, not the whole volume');

      assert.equal(await api.revealFile(revealVolume, ids[8]!), 'revealed');
      await until(() => selected().includes(ids[8]!), 50);
      assert.equal(tree.listing(revealVolume).loadedCount, 9);

      assert.equal(await api.revealFile(revealVolume, 'no-such-file-id'), 'fileNotFound');
      assert.deepEqual(selected(), [ids[8]], 'a miss leaves the selection alone');
      assert.equal(await api.revealFile(`${revealVolume}-not-listed`, ids[0]!), 'volumeNotShown');
    } finally {
      view.dispose();
      tree.dispose();
    }
  });
});
