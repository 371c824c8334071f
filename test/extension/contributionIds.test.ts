// package.json and the code name the same commands, views and context keys: a command
// declared but never registered shows in the palette and fails with "command not found"; a
// command registered but not declared (ksm.openSettings was) has no title or category and
// cannot be bound; a menu entry naming an unknown command is silently dropped by VS Code.
// The registration sites are read statically: every `registerCommand(` in src must name a
// `COMMAND.` constant (the compiler then checks the id is one of the typed list).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND, CONTEXT_KEY, VIEW_CONTAINER_ID, VIEW_ID, WALKTHROUGH_ID } from '../../src/common/core/contributionIds';
import { GLOBAL_STATE_KEY, SECRET_KEY, WORKSPACE_STATE_KEY } from '../../src/common/core/storageKeys';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const contributes = manifest.contributes;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const sources = sourceFiles('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));
const declared = new Set<string>(contributes.commands.map((c: { command: string }) => c.command));
const typed = new Set<string>(Object.values(COMMAND));

/** Every command a package.json contribution point refers to, with where it was found. */
function referencedCommands(): Array<{ where: string; command: string }> {
  const refs: Array<{ where: string; command: string }> = [];
  for (const [menu, entries] of Object.entries<Array<{ command?: string; submenu?: string }>>(contributes.menus ?? {})) {
    for (const entry of entries) if (entry.command) refs.push({ where: `menus.${menu}`, command: entry.command });
  }
  for (const binding of contributes.keybindings ?? []) refs.push({ where: 'keybindings', command: binding.command });
  for (const welcome of contributes.viewsWelcome ?? []) {
    for (const [, command] of String(welcome.contents).matchAll(/\(command:([\w.]+)/g)) refs.push({ where: `viewsWelcome ${welcome.view}`, command: command! });
  }
  for (const walkthrough of contributes.walkthroughs ?? []) {
    for (const step of walkthrough.steps ?? []) {
      for (const [, command] of String(step.description ?? '').matchAll(/\(command:([\w.]+)/g)) refs.push({ where: `walkthrough ${step.id}`, command: command! });
      for (const event of step.completionEvents ?? []) {
        const match = /^onCommand:(.+)$/.exec(event);
        if (match) refs.push({ where: `walkthrough ${step.id}`, command: match[1]! });
      }
    }
  }
  return refs;
}

describe('package.json and the code name the same commands, views and keys', () => {
  it('declares exactly the command ids of the typed list', () => {
    assert.deepEqual([...declared].sort(), [...typed].sort());
  });

  const FORWARDERS = [join('src', 'common', 'vscode', 'commands.ts'), join('src', 'common', 'vscode', 'lazyCommands.ts'), join('src', 'sync', 'syncFeature.ts')];
  it('registers every command of the typed list, each once, only through the typed constants', () => {
    const registered: string[] = [];
    for (const { path, text } of sources) {
      for (const match of text.matchAll(/registerCommand\(\s*([^,)\s]+)/g)) {
        const argument = match[1]!;
        // The error wrapper forwards its `id` parameter to VS Code, the lazy registration
        // (src/common/vscode/lazyCommands.ts, and the sync feature's recorded handlers) to it.
        if (FORWARDERS.includes(path) && argument === 'id') continue;
        // Declarations (`registerCommand(id: CommandId, …)`) and the wiring in extension.ts pass it on.
        if (argument.endsWith(':') || (path === join('src', 'extension.ts') && argument === 'log')) continue;
        const constant = /^COMMAND\.(\w+)$/.exec(argument);
        assert.ok(constant, `${path}: registerCommand(${argument}) must name a COMMAND constant`);
        const id = (COMMAND as Record<string, string>)[constant[1]!];
        assert.ok(id, `${path}: COMMAND.${constant[1]} is not in the typed list`);
        registered.push(id);
      }
    }
    assert.deepEqual([...registered].sort(), [...typed].sort(), 'registered once each');
  });

  it('refers only to declared commands from menus, keybindings, welcome views and walkthroughs', () => {
    const references = referencedCommands();
    assert.ok(references.length > 10, 'the manifest has menus to check');
    for (const { where, command } of references) assert.ok(declared.has(command), `${where} names ${command}, which is not declared`);
  });

  it('uses only declared views and context keys the extension sets in when clauses', () => {
    const contextKeys = new Set<string>(Object.values(CONTEXT_KEY));
    const views = new Set<string>(Object.values(VIEW_ID));
    assert.deepEqual(
      Object.values<Array<{ id: string }>>(contributes.views)
        .flat()
        .map((v) => v.id)
        .sort(),
      [...views].sort(),
    );
    assert.deepEqual(Object.keys(contributes.views).sort(), Object.values(VIEW_CONTAINER_ID).sort(), 'views sit in the typed containers');
    assert.deepEqual(contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id).sort(), Object.values(VIEW_CONTAINER_ID).sort());
    assert.deepEqual(
      contributes.views[VIEW_CONTAINER_ID.chat].map((v: { id: string }) => v.id),
      [VIEW_ID.chat],
      'the chat has a container of its own (full height)',
    );
    assert.deepEqual(
      contributes.walkthroughs.map((w: { id: string }) => w.id),
      [WALKTHROUGH_ID],
    );
    const whens: string[] = [
      ...(contributes.walkthroughs ?? []).flatMap((w: { steps: Array<{ completionEvents?: string[] }> }) =>
        w.steps.flatMap((step) => (step.completionEvents ?? []).filter((e) => e.startsWith('onContext:')).map((e) => e.slice('onContext:'.length))),
      ),
      ...Object.values<Array<{ when?: string }>>(contributes.menus ?? {})
        .flat()
        .map((entry) => entry.when ?? ''),
      ...(contributes.viewsWelcome ?? []).map((w: { when?: string }) => w.when ?? ''),
      ...(contributes.keybindings ?? []).map((k: { when?: string }) => k.when ?? ''),
    ];
    for (const when of whens) {
      for (const [, view] of when.matchAll(/\b(?:view|focusedView)\s*==\s*([\w.]+)/g)) assert.ok(views.has(view!), `when "${when}" names the unknown view ${view}`);
      // What is left after settings (config.ksm.*), view ids and tree item values must be a key we set.
      const rest = when.replace(/config\.ksm\.[\w.]+/g, '').replace(/\b(view|viewItem|focusedView)\s*(==|=~)\s*(\/(?:[^/\\]|\\.)*\/|[\w.]+)/g, '');
      for (const [key] of rest.matchAll(/\bksm\.[\w.]+/g)) assert.ok(contextKeys.has(key), `when "${when}" reads ${key}, which the extension never sets`);
    }
    for (const key of contextKeys) {
      assert.ok(
        sources.some(({ text }) => text.includes(`CONTEXT_KEY.${Object.entries(CONTEXT_KEY).find(([, v]) => v === key)![0]}`)),
        `${key} is never set`,
      );
    }
  });

  it('keeps command ids and storage keys as literals only in their constant files', () => {
    const ids = [...typed, ...Object.values(CONTEXT_KEY), ...Object.values(SECRET_KEY), ...Object.values(GLOBAL_STATE_KEY), ...Object.values(WORKSPACE_STATE_KEY)];
    const homes = [join('src', 'common', 'core', 'contributionIds.ts'), join('src', 'common', 'core', 'storageKeys.ts')];
    for (const { path, text } of sources) {
      if (homes.includes(path)) continue;
      for (const id of ids) assert.ok(!text.includes(`'${id}'`), `${path} spells '${id}'; use its constant`);
    }
  });

  it('gives every storage key its own name, under ksm.', () => {
    const keys = [...Object.values(SECRET_KEY), ...Object.values(GLOBAL_STATE_KEY), ...Object.values(WORKSPACE_STATE_KEY)];
    assert.equal(new Set(keys).size, keys.length);
    for (const key of keys) assert.match(key, /^ksm\./);
  });
});
