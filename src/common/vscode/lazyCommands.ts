// Commands whose code loads at their first use, not at activation: the ids are registered
// now (cheap, declarative, disposed with the extension) and the first call of any of them
// loads the feature's module, which registers its real handlers on a recorder; from then on
// each call goes straight to its handler. Every call still goes through the one error
// wrapper (services.registerCommand), so a failure to load is reported like any failure.
import type { CommandId } from '../core/contributionIds';
import type { CommandHandler } from './commands';
import type { ExtensionServices } from './services';
import { loadOnce } from '../core/loadOnce';

/** What a lazily loaded module hands back: its own `register…Commands`, given services whose registerCommand records. */
export type CommandRegistrar = (services: ExtensionServices) => void;

export function registerLazyCommands(services: ExtensionServices, ids: readonly CommandId[], load: () => Promise<CommandRegistrar>): void {
  const handlers = loadOnce(async () => {
    const register = await load();
    const recorded = new Map<CommandId, CommandHandler<unknown[]>>();
    register({ ...services, registerCommand: (id, handler) => void recorded.set(id, handler as CommandHandler<unknown[]>) });
    // The ids declared here and those the module registers must be the same (test/common/lazyCommands.test.ts checks the sources too).
    const missing = ids.filter((id) => !recorded.has(id));
    const unexpected = [...recorded.keys()].filter((id) => !ids.includes(id));
    if (missing.length || unexpected.length) services.log.error(`lazy commands differ from their module: missing ${missing.join(', ') || 'none'}; not declared ${unexpected.join(', ') || 'none'}`);
    return recorded;
  });
  for (const id of ids) {
    services.registerCommand(id, async (...args: unknown[]) => {
      const handler = (await handlers()).get(id);
      if (!handler) throw new Error(`Command ${id} is not available.`);
      return handler(...args);
    });
  }
}
