import { Command, InvalidArgumentError, Option } from 'commander';
import { DELIVERY_STATUSES } from '../../domain/deliveries.js';
import type { Delivery } from '../../domain/deliveries.js';
import { withContext } from '../run-with-context.js';
import { EXIT } from '../exit-code.js';

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

const iso = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** Aligned columns for people; `--json` gives the HTTP API's objects for scripts. */
function table(deliveries: Delivery[]): string {
  const rows = [
    ['ID', 'STATUS', 'ATTEMPTS', 'CODE', 'MESSAGE', 'CREATED', 'NEXT ATTEMPT', 'LAST ERROR'],
    ...deliveries.map((d) => [
      String(d.id),
      d.status,
      String(d.attempts),
      d.lastStatusCode === null ? '-' : String(d.lastStatusCode),
      d.messageId === null ? `alert ${d.alertId}` : String(d.messageId),
      iso(d.created),
      iso(d.nextAttempt),
      d.lastError ?? '-',
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

export function deliveriesCommand(): Command {
  const deliveries = new Command('deliveries').description("apps' callback deliveries: the log, and re-queueing failed ones");
  deliveries
    .command('list')
    .description("an app's deliveries, newest first")
    .requiredOption('--app <id>', 'app id', positiveInteger)
    .addOption(new Option('--status <status>', 'only deliveries in this status').choices(DELIVERY_STATUSES))
    .option('--limit <n>', 'at most this many (up to 1000)', positiveInteger, 20)
    .option('--before <id>', 'only deliveries older than this delivery id (the next page)', positiveInteger)
    .option('--json', 'print a JSON array, as GET /iot/developers/apps/{idApp}/deliveries.json answers')
    .addHelpText('after', '\nExample:\n  snsr deliveries list --app 3 --status failed')
    .action(async (options: { app: number; status?: string; limit: number; before?: number; json?: boolean }) => {
      await withContext(async (context) => {
        const list = await context.deliveries.listForApp(options.app, {
          limit: options.limit,
          ...(options.before !== undefined && { before: options.before }),
          ...(options.status !== undefined && { status: options.status }),
        });
        if (options.json) {
          const { presentDelivery } = await import('../../http/presenters/deliveries.js');
          console.log(JSON.stringify(list.map(presentDelivery), null, 2));
        }
        else if (list.length === 0) console.log('no deliveries');
        else console.log(table(list));
      });
    });
  deliveries
    .command('retry')
    .description('queue failed deliveries again, from their first attempt: one by id, or every failed one of an app')
    .argument('[id]', 'delivery id (the ID column of `deliveries list`)', positiveInteger)
    .option('--app <id>', 'the app whose failed deliveries to queue again (with --all-failed)', positiveInteger)
    .option('--all-failed', 'every failed delivery of --app')
    .addHelpText('after', '\nExamples:\n  snsr deliveries retry 42\n  snsr deliveries retry --app 3 --all-failed')
    .action(async (id: number | undefined, options: { app?: number; allFailed?: boolean }, command: Command) => {
      const bulk = options.app !== undefined || options.allFailed === true;
      if (id !== undefined && bulk) command.error('error: give a delivery id, or --app ID --all-failed, not both', { exitCode: EXIT.usage });
      if (id === undefined && (options.app === undefined || !options.allFailed)) {
        command.error('error: give a delivery id, or --app ID --all-failed', { exitCode: EXIT.usage });
      }
      await withContext(async (context) => {
        if (id !== undefined) {
          const delivery = await context.deliveries.retryAny(id);
          console.log(`delivery ${delivery.id} (app ${delivery.appId}) queued again; a running worker sends it now`);
          return;
        }
        const requeued = await context.webhooks.retryFailedAny(options.app!, { allFailed: true });
        console.log(`${requeued} failed deliveries of app ${options.app} queued again; a running worker sends them now`);
      });
    });
  return deliveries;
}
