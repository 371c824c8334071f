// Issue 26, localisation: the packaged extension in a real VS Code whose display language is
// a pseudo-locale (qps-ploc) made here by @vscode/l10n-dev from the extension's own
// package.nls.json and l10n bundle, placed into the installed extension as a translation
// would be. The palette shows KSM's command titles in the pseudo-locale, and Check
// Connection's notification, buttons and quick pick come out pseudo: a plain-ASCII word left
// in them is a string that never went through the tables. Nothing generated is committed.
//
// code-server takes the display language from `--locale`, but only for a language it has a
// language pack for (else the workbench stays English and asks extensions for English too):
// the scenario registers a pack for qps-ploc in the user data (languagepacks.json) whose
// VS Code translation is empty, so VS Code's own texts stay English while the language,
// and with it the extension's bundle and manifest translation, is qps-ploc.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodeServer } from '../harness/codeServer';
import { eventually } from '../harness/eventually';
import { REPO_ROOT } from '../harness/paths';
import { useScenario } from '../harness/scenario';
import { writeUserSettings } from '../harness/settings';
import type { Workbench } from '../harness/workbench';

const LOCALE = 'qps-ploc';
const L10N_DEV = join(REPO_ROOT, 'node_modules', '@vscode', 'l10n-dev', 'dist', 'cli.js');

/** Each ASCII letter as an accented one, as qps-ploc does: a text that came from a translation, never from English. */
function pseudoOf(text: string): string {
  const plain = 'aeiouAEIOUnNcC';
  const accented = 'ȧḗīǿŭȦḖĪǾŬƞȠƈƇ';
  return [...text].map((ch) => accented[plain.indexOf(ch)] ?? ch).join('');
}
const WALKTHROUGH_HEADING = pseudoOf('Connect to a KSM service');

/** Plain-ASCII words left once what is not ours to translate (URLs, ids, codicons) is taken out. */
function englishWords(text: string): string[] {
  const rest = text
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/'[^'\s]*'/g, ' ')
    .replace(/\bksm(\.\w+)+/g, ' ');
  return rest.match(/[A-Za-z]{2,}/g) ?? [];
}

describe('Scenario 17: under a generated pseudo-locale (qps-ploc) the palette and a notification show no unlocalised text', function () {
  this.timeout(300_000);
  let pseudoNls: Record<string, string>;
  let pseudoBundle: Record<string, string>;
  // A code-server of its own: the display language is a command-line option.
  const scenario = useScenario('17-pseudo-locale', {
    ownCodeServer: {
      // Not the English "KSM Assistant" activity-bar entry: it is pseudo here.
      waitForKsm: false,
      prepare: async (shared, root) => {
        // The same VSIX, installed into an extensions folder of its own, then given the pseudo-locale's files.
        const extensionsDir = join(root, 'extensions');
        await CodeServer.installExtension(shared.launcher, extensionsDir, shared.vsix);
        const installed = readdirSync(extensionsDir).find((name) => name.startsWith('ksm.ksm-assistant-'));
        assert.ok(installed, `the VSIX installed into ${extensionsDir}`);
        const extension = join(extensionsDir, installed);
        execFileSync(process.execPath, [L10N_DEV, 'generate-pseudo', '-o', extension, join(extension, 'package.nls.json')], { stdio: 'pipe' });
        execFileSync(process.execPath, [L10N_DEV, 'generate-pseudo', '-o', join(extension, 'l10n'), join(extension, 'l10n', 'bundle.l10n.json')], { stdio: 'pipe' });
        pseudoNls = JSON.parse(readFileSync(join(extension, `package.nls.${LOCALE}.json`), 'utf8'));
        pseudoBundle = JSON.parse(readFileSync(join(extension, 'l10n', `bundle.l10n.${LOCALE}.json`), 'utf8'));
        // A walkthrough page's translation is a Markdown file beside it (docs/architecture.md, Localisation).
        writeFileSync(join(extension, 'media', 'walkthrough', `connect.nls.${LOCALE}.md`), `# ${WALKTHROUGH_HEADING}\n\n${pseudoOf('Open Settings and set the address of the service.')}\n`);

        const userDataDir = join(root, 'user-data');
        writeUserSettings(userDataDir, { 'ksm.baseUrl': shared.emulator.url, 'ksm.userId': shared.emulator.userId });
        const pack = join(root, 'language-pack');
        mkdirSync(pack, { recursive: true });
        writeFileSync(join(pack, 'main.i18n.json'), JSON.stringify({ version: '1.0.0', contents: {} }));
        writeFileSync(
          join(userDataDir, 'languagepacks.json'),
          // VS Code reads the pack's extension list (an empty one breaks its language list, and with it the extension scan).
          JSON.stringify({
            [LOCALE]: {
              hash: 'ksm-e2e-pseudo',
              extensions: [{ extensionIdentifier: { id: 'ksm-e2e.pseudo-language-pack' }, version: '1.0.0' }],
              translations: { vscode: join(pack, 'main.i18n.json') },
              label: 'Pseudo',
            },
          }),
        );
        return { userDataDir, extensionsDir, workspace: shared.workspace, locale: LOCALE };
      },
    },
  });
  let workbench: Workbench;
  before(() => {
    ({ workbench } = scenario);
  });

  it("the activity bar names KSM's containers in the pseudo-locale", async () => {
    const pseudo = pseudoNls['viewsContainer.ksm.title']!;
    assert.notEqual(pseudo, 'KSM Assistant');
    const entry = workbench.page.locator(`.activitybar .action-item [aria-label^="${pseudo}"]`).first();
    await entry.waitFor({ timeout: 60_000 });
    assert.equal(await workbench.page.locator('.activitybar .action-item [aria-label^="KSM Assistant"]').count(), 0, 'no English entry');
  });

  it("the command palette lists KSM's commands with their pseudo-locale titles, and none in English", async () => {
    const category = pseudoNls['command.category']!;
    const title = `${category}: ${pseudoNls['command.checkConnection.title']}`;
    assert.notEqual(title, 'KSM: Check Connection');
    await workbench.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } });
    await workbench.page.keyboard.press('Control+Shift+P');
    await workbench.quickInputBox().fill(`>${category}:`);
    // Each row's own title (its first label; a localized command's row also shows VS Code's English alias below it).
    const rows = workbench.quickInput().locator('.quick-input-list .monaco-list-row');
    const titles = () => rows.evaluateAll((els) => els.map((el) => el.querySelector('.label-name')?.textContent ?? ''));
    await eventually(
      async () => (await titles()).includes(title),
      async () => `the palette shows ${JSON.stringify(await titles())}, not "${title}"`,
      60_000,
    );
    // Ours: the rows of our category (VS Code's generated "Focus on … View" rows carry its own English words).
    const ours = (await titles()).filter((label) => label.startsWith(`${category}: `));
    assert.ok(ours.length >= 5, `KSM's commands are listed: ${JSON.stringify(ours)}`);
    const english = ours.filter((label) => englishWords(label).length > 0);
    assert.deepEqual(english, [], `palette rows with English: ${JSON.stringify(english)}`);
    assert.ok(!(await titles()).includes('KSM: Check Connection'), 'no English title');
    await workbench.screenshot('17-palette');
    await workbench.page.keyboard.press('Escape');
  });

  it('the chat panel renders in the pseudo-locale: the webview gets the bundle and shows no English', async () => {
    const pseudo = pseudoNls['viewsContainer.ksm-chat.title']!;
    await workbench.page.locator(`.activitybar .action-item [aria-label^="${pseudo}"]`).first().click();
    const body = workbench.chatFrame().locator('body');
    let text = '';
    await eventually(
      async () => {
        text = (await body.innerText({ timeout: 2000 }).catch(() => '')) ?? '';
        // Drawn: the header and the in-chat welcome (this profile has no key), with its Set API Key button.
        return text.includes(pseudoBundle['Set API Key']!) && text.includes(pseudoBundle['Connect to Local Emulator']!);
      },
      async () => `the chat panel never showed pseudo-locale text; it shows ${JSON.stringify(text.slice(0, 300))}`,
      60_000,
    );
    await workbench.screenshot('17-chat-panel');
    // Model ids are the user's, and a date is Intl's (which has no qps-ploc and formats it in English); everything else is ours.
    const ours = text
      .replace(/\bemu-[\w-]+\b/g, ' ')
      .replace(/\brag-agent\b/g, ' ')
      .replace(/\bnpm run emulator\b/g, ' ') // a command to type, shown as code
      .replace(/\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}(, \d{2}:\d{2}( [AP]M)?)?/g, ' ');
    assert.deepEqual(englishWords(ours), [], `English left in the chat panel: ${text}`);
  });

  it("Check Connection's choice, notification and buttons come out in the pseudo-locale", async () => {
    await workbench.runCommand(`${pseudoNls['command.category']}: ${pseudoNls['command.checkConnection.title']}`);
    const readOnly = pseudoBundle['Check without the agent (read-only)']!;
    await workbench.pick(readOnly);
    // No API key in this profile: the check stops at the key, and the notification names that step and its fix.
    const prefix = pseudoBundle['KSM connection check: {0}']!.replace('{0}', '');
    let text = '';
    let buttons: string[] = [];
    await eventually(
      async () => {
        const found = await workbench.findNotification(new RegExp(prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        if (!found) return false;
        // Our text only: the message and its buttons (the toast's frame is VS Code's own, English here).
        text = (await found.locator('.notification-list-item-message').innerText()) ?? '';
        buttons = await found.locator('.notification-list-item-buttons-container .monaco-button').allInnerTexts();
        return text !== '';
      },
      async () => `no pseudo-locale Check Connection notification; shown: ${JSON.stringify(await workbench.notifications().allTextContents())}`,
      60_000,
    );
    await workbench.screenshot('17-check-connection-notification');
    assert.ok(buttons.includes(pseudoBundle['Set API Key']!), `the fix button is in the pseudo-locale: ${JSON.stringify(buttons)}`);
    assert.ok(buttons.includes(pseudoBundle['Copy Report']!), `Copy Report is in the pseudo-locale: ${JSON.stringify(buttons)}`);
    assert.deepEqual(englishWords([text, ...buttons].join(' ')), [], `English left in the notification: ${text} ${JSON.stringify(buttons)}`);
  });

  it("the walkthrough's first step shows its page's translation (connect.nls.qps-ploc.md beside connect.md)", async () => {
    await workbench.runCommand(`${pseudoNls['command.category']}: ${pseudoNls['command.getStarted.title']}`);
    const frameTexts = () =>
      Promise.all(
        workbench.page.frames().map((frame) =>
          frame
            .locator('body')
            .innerText({ timeout: 1_000 })
            .catch(() => ''),
        ),
      );
    await eventually(
      async () => (await frameTexts()).some((text) => text.includes(WALKTHROUGH_HEADING)),
      async () => `no frame shows the translated page; frames show ${JSON.stringify((await frameTexts()).map((t) => t.slice(0, 80)))}`,
      30_000,
      500,
    );
    assert.ok(!(await frameTexts()).some((text) => text.includes('Connect to a KSM service')), 'the English page is not shown');
    await workbench.screenshot('17-walkthrough');
    await workbench.runCommand('View: Close All Editors');
  });
});
