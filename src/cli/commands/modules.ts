import { Command } from 'commander';
import { notFound } from '../../domain/errors.js';
import { normalizeSerial } from '../../domain/modules.js';
import { withContext } from '../run-with-context.js';
import { addModuleListCommands } from './module-list.js';

export function modulesCommand(): Command {
  const modules = new Command('modules').description('registered modules: list, search, name, tag, rekey');
  modules
    .command('rekey')
    .description(
      "set a new device key on a registered module, for its owner: the printed key, the PAC and every device token minted before stop working; prints the new key on the last line",
    )
    .requiredOption('--serial <serial>', 'the module serial, any case')
    .option('--key <key>', 'the new key, 8 hex digits; default: a random one')
    .addHelpText('after', '\nExample:\n  snsr modules rekey --serial C0FE')
    .action(async (options: { serial: string; key?: string }) => {
      await withContext(async (context) => {
        const serial = normalizeSerial(options.serial);
        const module = await context.repositories.modules.bySerial(serial);
        if (!module) throw notFound(`module ${serial} is not in the catalog`);
        if (module.accountId === null) throw notFound(`module ${serial} is not registered: its printed key is the one in force`);
        const rekeyed = await context.modules.rekey(module.accountId, serial, options.key);
        await context.audit.record({ accountId: module.accountId, action: 'module.rekey', actor: { kind: 'operator' }, address: null, detail: { sn: serial } });
        console.log(`new device key of ${serial}; device tokens minted before no longer work`);
        console.log(rekeyed.key);
      });
    });
  return addModuleListCommands(modules);
}
