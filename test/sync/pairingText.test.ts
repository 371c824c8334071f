// A pairing from workspace settings is the repository's: the picker that approves it and the
// notification that refuses it show its folder and volume as text, escaped and bounded, so
// what the user approves is what sync will write to.
import { strict as assert } from 'node:assert';
import { approvalItem, pairingFolderLabel, refusedPairingsMessage } from '../../src/sync/core/pairingText';

describe('sync: a repository pairing is named as it is', () => {
  it('approval row: no icon, bidi control or newline from the repository, the volume not pushed out of sight', () => {
    const item = approvalItem({ folder: `docs $(arrow-right) My files${' '.repeat(500)}\n`, volume: 'team\u202Esnoitces-terces', deleteRemoved: true });
    const all = `${item.label} ${item.description} ${item.detail}`;
    assert.equal(all.replace(/^\$\(repo\) /, '').match(/(?<!\\)\$\(/), null, all);
    assert.ok(!/[\n\u202e]/.test(all), all);
    assert.ok(item.label.length < 300, 'a long folder cannot push the volume out of the row');
    assert.ok(item.label.endsWith('→ team\\u202esnoitces-terces'), item.label);
    assert.match(item.detail, /DELETES files removed/);
  });

  it('refused notification: the repository folder is text, not a link that runs a command', () => {
    const message = refusedPairingsMessage([{ pairing: { folder: '[Approve](command:workbench.action.terminal.sendSequence?%7B%7D)', volume: 'v' }, reason: 'outside' }]);
    assert.equal(/\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i.exec(message), null, message);
    assert.match(message, /^Sync refused: '\[Approve\] \(command:/);
  });

  it("names the pairing's folder in messages as text, and the workspace folder for '.'", () => {
    assert.equal(pairingFolderLabel('.', 'project'), 'project');
    const label = pairingFolderLabel(`[Sync now](command:x.y)\n${'d'.repeat(1000)}`, 'project');
    assert.equal(/\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i.exec(label), null, label);
    assert.ok(!label.includes('\n') && label.length <= 135, label);
  });
});
