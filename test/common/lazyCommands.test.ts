// Commands whose code loads at first use (src/common/vscode/lazyCommands.ts) are registered
// at activation from the lists of LAZY_COMMANDS; their handlers come from the module that
// loads later. Each list must name exactly what its module registers: a command missing from
// the list would never be callable (VS Code would say "command not found"), one listed but
// not registered fails at its first use. Read statically, as test/extension/contributionIds.test.ts does.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND, LAZY_COMMANDS, LM_TOOL_ID, PARTICIPANT_ID } from '../../src/common/core/contributionIds';

/** The module whose `register…Commands` each list stands for. */
const MODULES: Record<keyof typeof LAZY_COMMANDS, string | string[]> = {
  connection: ['src/connection/vscode/accountCommands.ts', 'src/connection/vscode/commands.ts'],
  chat: 'src/chat/vscode/commands.ts',
  nativeChat: 'src/nativeChat/vscode/commands.ts',
  sync: 'src/sync/vscode/commands.ts',
  upload: 'src/upload/vscode/commands.ts',
  volumes: 'src/volumes/vscode/commands.ts',
};

const ids = (names: Iterable<string>) => [...names].map((name) => COMMAND[name as keyof typeof COMMAND] ?? `unknown COMMAND.${name}`).sort();
const registeredIn = (text: string) => ids([...text.matchAll(/registerCommand\(\s*COMMAND\.(\w+)/g)].map((m) => m[1]!));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('common: commands that load at first use (LAZY_COMMANDS)', () => {
  for (const [group, module] of Object.entries(MODULES)) {
    it(`${group}: the list is exactly what ${String(module)} registers`, () => {
      assert.deepEqual(
        [...LAZY_COMMANDS[group as keyof typeof LAZY_COMMANDS]].sort(),
        registeredIn(
          [module]
            .flat()
            .map((file) => readFileSync(file, 'utf8'))
            .join('\n'),
        ),
      );
    });
  }

  it('every list has a module, and no lazily registered command is also registered anywhere else', () => {
    assert.deepEqual(Object.keys(LAZY_COMMANDS).sort(), Object.keys(MODULES).sort());
    const lazy = new Set<string>(Object.values(LAZY_COMMANDS).flat());
    const modules = new Set(Object.values(MODULES).flat());
    const elsewhere = sourceFiles('src')
      .filter((path) => !modules.has(path))
      .flatMap((path) =>
        registeredIn(readFileSync(path, 'utf8'))
          .filter((id) => lazy.has(id))
          .map((id) => `${id} in ${path}`),
      );
    assert.deepEqual(elsewhere, []);
  });

  it('the participant and the tools registered at activation are the ones package.json declares', () => {
    const contributes = JSON.parse(readFileSync('package.json', 'utf8')).contributes;
    assert.deepEqual(
      contributes.chatParticipants.map((p: { id: string }) => p.id),
      [PARTICIPANT_ID],
    );
    assert.deepEqual(contributes.languageModelTools.map((t: { name: string }) => t.name).sort(), Object.values(LM_TOOL_ID).sort());
  });
});
