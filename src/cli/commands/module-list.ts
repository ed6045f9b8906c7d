// `snsr modules`: the module list, names/tags/notes and bulk tagging, for an account, from the shell.
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { MODULE_SORTS, MODULE_STATES, parseModuleFilter, parseModuleListQuery } from '../../domain/module-list.js';
import type { ModuleListRow } from '../../domain/module-list.js';
import { withContext } from '../run-with-context.js';
import { progressBar } from '../progress-bar.js';

const iso = (date: Date | null) => (date === null ? 'never' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'));

function count(value: string): string {
  if (!/^\d+$/.test(value)) {
    const error = new InvalidArgumentError('must be a whole number');
    error.exitCode = 2;
    throw error;
  }
  return value;
}

function table(rows: ModuleListRow[]): string {
  const lines = [
    ['SERIAL', 'NAME', 'TAGS', 'LAST SEEN', 'ALERTS', 'BATTERY', 'CHILDREN'],
    ...rows.map((m) => [m.serial, m.name ?? '-', m.tags.join(',') || '-', iso(m.lastseen), String(m.alerts), m.battery, String(m.children)]),
  ];
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  return lines.map((line) => line.map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

interface FilterOptions {
  email: string;
  search?: string;
  tag?: string;
  state?: string;
}

const filterOf = (options: FilterOptions) => ({ q: options.search, tag: options.tag, state: options.state });

function withFilter(command: Command): Command {
  return command
    .requiredOption('--email <email>', 'login of the account')
    .option('--search <text>', 'serial (prefix), name (part) or tag (whole) of the module or a child')
    .option('--tag <tag>', 'only modules with this tag')
    .addOption(new Option('--state <state>', 'only modules in this state').choices(MODULE_STATES));
}

async function accountId(context: Parameters<Parameters<typeof withContext>[0]>[0], email: string): Promise<number> {
  return (await context.accounts.byEmail(email)).id;
}

/** `list`, `label` and `tag` under `snsr modules`. */
export function addModuleListCommands(modules: Command): Command {
  withFilter(modules.command('list').description("list an account's modules: search, filter, sort, page"))
    .addOption(new Option('--sort <column>', 'sort by').choices(MODULE_SORTS).default('lastseen'))
    .addOption(new Option('--order <order>', 'default: newest, most alerts, low battery, A–Z first').choices(['asc', 'desc']))
    .option('--limit <n>', 'at most this many (up to 500)', count, '50')
    .option('--offset <n>', 'skip this many (the next page)', count, '0')
    .option('--json', 'print the page as GET /iot/developers/modules/list.json answers it')
    .addHelpText('after', '\nExample:\n  snsr modules list --email dev@example.com --search cold --sort battery')
    .action(async (options: FilterOptions & { sort: string; order?: string; limit: string; offset: string; json?: boolean }) => {
      const query = parseModuleListQuery({ ...filterOf(options), sort: options.sort, order: options.order, limit: options.limit, offset: options.offset });
      await withContext(async (context) => {
        const page = await context.moduleList.page(await accountId(context, options.email), query);
        if (options.json) {
          const { presentModuleListPage } = await import('../../http/presenters/module-list.js');
          return console.log(JSON.stringify(presentModuleListPage(page, query), null, 2));
        }
        if (page.total === 0) return console.log('no module matches');
        console.log(table(page.modules));
        console.log(`${query.offset + 1}–${query.offset + page.modules.length} of ${page.total}`);
      });
    });
  modules
    .command('label')
    .description('name, tag or annotate a module or child device; options left out stay as they are')
    .argument('<sn>', 'module serial, or <serial>/<entry id> for a child')
    .requiredOption('--email <email>', 'login of the account')
    .option('--name <name>', 'a name ("" clears it)')
    .option('--tags <tags>', 'the tags, separated by commas ("" clears them)')
    .option('--notes <notes>', 'free text ("" clears it)')
    .addHelpText('after', '\nExample:\n  snsr modules label --email dev@example.com C0FE --name "Cellar pump" --tags cellar,wet')
    .action(async (sn: string, options: { email: string; name?: string; tags?: string; notes?: string }) => {
      await withContext(async (context) => {
        const labels = await context.labels.set(await accountId(context, options.email), sn, {
          ...(options.name !== undefined && { name: options.name }),
          ...(options.tags !== undefined && { tags: options.tags }),
          ...(options.notes !== undefined && { notes: options.notes }),
        });
        const { presentLabels } = await import('../../http/presenters/module-list.js');
        console.log(JSON.stringify(presentLabels(labels)));
      });
    });
  withFilter(modules.command('tag').description('add and remove tags on the listed modules, or on every module matching the filter'))
    .argument('[serials...]', 'modules to tag (default: every module matching --search/--tag/--state)')
    .option('--add <tags>', 'tags to add, separated by commas')
    .option('--remove <tags>', 'tags to remove, separated by commas')
    .addHelpText('after', '\nExamples:\n  snsr modules tag --email dev@example.com --add pilot C0FE BEEF\n  snsr modules tag --email dev@example.com --state low-battery --add replace-battery')
    .action(async (serials: string[], options: FilterOptions & { add?: string; remove?: string }, command: Command) => {
      if (options.add === undefined && options.remove === undefined) command.error('error: name tags with --add or --remove', { exitCode: 2 });
      const filter = parseModuleFilter(filterOf(options));
      await withContext(async (context) => {
        const id = await accountId(context, options.email);
        const targets = serials.length > 0 ? serials : await context.moduleList.serials(id, filter);
        const progress = progressBar('tagging');
        const result = await context.labels
          .retag(id, targets, { ...(options.add !== undefined && { add: options.add }), ...(options.remove !== undefined && { remove: options.remove }) }, (done, total) => progress.update(done, total))
          .finally(() => progress.stop());
        console.log(`${result.changed} of ${result.modules} modules changed`);
      });
    });
  return modules;
}
