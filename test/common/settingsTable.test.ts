// The settings table (src/common/core/settingsTable.ts) and package.json's
// contributes.configuration describe the same settings: change a default, a scope, a type
// or an enum in one place only and this fails. Every data-routing setting is restricted in
// untrusted workspaces. Each reader normalises hostile values (a workspace file can hold any JSON).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { ALL_SETTINGS, SETTINGS, restrictedSettingKeys, settingByKey } from '../../src/common/core/settingsTable';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const properties: Record<string, Record<string, unknown>> = manifest.contributes.configuration.properties;

describe('settings table', () => {
  it('declares exactly the settings package.json contributes', () => {
    assert.deepEqual(ALL_SETTINGS.map((s) => s.key).sort(), Object.keys(properties).sort());
  });

  for (const spec of ALL_SETTINGS) {
    it(`${spec.key}: package.json has the table's type, default, scope, enum and bounds`, () => {
      const declared = properties[spec.key];
      assert.ok(declared, `${spec.key} missing from package.json`);
      assert.equal(declared.type, spec.type, 'type');
      assert.deepEqual(declared.default, spec.default, 'default');
      assert.equal(declared.scope ?? 'window', spec.scope, 'scope');
      assert.ok(declared.scope, `${spec.key}: write the scope out in package.json (the review of issue 22 decided each)`);
      assert.deepEqual(declared.enum, spec.enum, 'enum');
      assert.equal(declared.minimum, spec.minimum, 'minimum');
      assert.equal(declared.maximum, spec.maximum, 'maximum');
      assert.equal((declared.items as { type?: string } | undefined)?.type, spec.items, 'items.type');
      assert.ok(spec.reason.length > 20, `${spec.key}: say why it has this scope`);
    });

    it(`${spec.key}: the reader turns its own default into itself and survives hostile values`, () => {
      assert.deepEqual(spec.read(spec.default), spec.default);
      for (const hostile of [null, 42, 'x', [1, {}], { a: 1 }, true, Number.NaN, -1e9, 1e9]) {
        const value = spec.read(hostile);
        assert.equal(typeof value, typeof spec.default, `${spec.key} read(${JSON.stringify(hostile)})`);
        if (typeof value === 'number') {
          assert.ok(Number.isFinite(value));
          if (spec.minimum !== undefined) assert.ok(value >= spec.minimum, `${spec.key} below its minimum`);
          if (spec.maximum !== undefined) assert.ok(value <= spec.maximum, `${spec.key} above its maximum`);
        }
        if (spec.enum) assert.ok(spec.enum.includes(value), `${spec.key} outside its enum`);
      }
    });
  }

  it('lists every data-routing setting, and only those, in restrictedConfigurations; untrusted workspaces are supported in a limited way', () => {
    const untrusted = manifest.capabilities?.untrustedWorkspaces;
    assert.equal(untrusted?.supported, 'limited');
    assert.ok(typeof untrusted.description === 'string' && untrusted.description.length > 20);
    assert.deepEqual([...untrusted.restrictedConfigurations].sort(), restrictedSettingKeys().sort());
  });

  it('flags as data-routing at least the settings issue 22 names', () => {
    for (const key of ['ksm.sync.folders', 'ksm.sync.deleteGuardPercent', 'ksm.upload.exclude', 'ksm.debug.logRequests', 'ksm.agent.id', 'ksm.agent.model', 'ksm.volumes.list', 'ksm.baseUrl']) {
      assert.equal(settingByKey(key)?.dataRouting, true, key);
    }
  });

  it('never lets a workspace decide where the key goes: the address, the user id, the CA bundle and request logging are user- or machine-only', () => {
    for (const spec of [SETTINGS.baseUrl, SETTINGS.userId, SETTINGS.networkCaBundle, SETTINGS.debugLogRequests]) {
      assert.ok(['application', 'machine'].includes(spec.scope), spec.key);
    }
  });

  it('normalises as the code expects', () => {
    assert.equal(SETTINGS.baseUrl.read('  https://ksm.example.com/// '), 'https://ksm.example.com');
    assert.deepEqual(SETTINGS.volumesList.read([' a ', 'a', '', 3, 'b']), ['a', 'b']);
    assert.equal(SETTINGS.volumesPageSize.read(5000), 1000);
    assert.equal(SETTINGS.volumesPageSize.read(2.6), 3);
    assert.equal(SETTINGS.syncDeleteGuardPercent.read(250), 100);
    assert.equal(SETTINGS.agentId.read('   '), 'rag-agent');
    assert.equal(SETTINGS.uploadDoChunking.read(7), 1);
    assert.equal(SETTINGS.uploadMaxFileSizeMB.read(-3), 0);
    assert.deepEqual(SETTINGS.syncFolders.read([{ folder: ' docs ', volume: 'v', watch: 'yes' }, { folder: 'x' }, 'y', null]), [{ folder: 'docs', volume: 'v', deleteRemoved: false, watch: false }]);
  });
});
