import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { withContext } from '../run-with-context.js';
import { progressBar } from '../progress-bar.js';

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

export function catalogCommand(): Command {
  const catalog = new Command('catalog').description("the operator's catalog of manufactured modules");
  catalog
    .command('import')
    .description('import or update modules from a CSV file; a file with any bad line is rejected whole')
    .argument('<file>', 'CSV with a header line: SERIAL;KEY;PAC[;PROTOCOL] (PROTOCOL is UDM22 or UDM23, default UDM23)')
    .addHelpText(
      'after',
      '\nExample file:\n  SERIAL;KEY;PAC;PROTOCOL\n  C0FE;1A2B3C4D;0123456789ABCDEF;UDM23\n\nThe file is checked whole first; then it is written in chunks of 200 modules, each committed on its own\n(not atomic: if the import stops part-way, run it again — re-importing is harmless).',
    )
    .action(async (file: string) => {
      const text = await readFile(file, 'utf8');
      await withContext(async (context) => {
        const progress = progressBar('importing');
        const { created, updated } = await context.catalog.import(text, (done, total) => progress.update(done, total)).finally(() => progress.stop());
        console.log(`imported ${created + updated} modules (${created} new, ${updated} updated)`);
      });
    });
  catalog
    .command('list')
    .description('list the catalog: serial, key, PAC, protocol, registered account id')
    .option('--limit <n>', 'at most this many modules', positiveInteger, 1000)
    .option('--after <serial>', 'start after this serial (paging)')
    .action(async (options: { limit: number; after?: string }) => {
      const { limit } = options;
      await withContext(async (context) => {
        const modules = await context.catalog.list(limit, options.after?.toUpperCase());
        console.log('SERIAL;KEY;PAC;PROTOCOL;ACCOUNT');
        for (const m of modules) console.log([m.serial, m.key, m.pac, m.protocol, m.accountId ?? ''].join(';'));
      });
    });
  return catalog;
}
