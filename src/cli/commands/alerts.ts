import { Command, InvalidArgumentError } from 'commander';
import type { Alert } from '../../domain/alerts.js';
import { presentAlert } from '../../wire/alert.js';
import { withContext } from '../run-with-context.js';

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

const iso = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** Aligned columns for people; `--json` gives the HTTP API's objects for scripts. */
function table(alerts: Alert[]): string {
  const rows = [
    ['ID', 'DEVICE', 'KIND', 'RAISED', 'ENDED', 'ACKED', 'MESSAGE'],
    ...alerts.map((a) => [String(a.id), a.deviceSerial, a.kind, iso(a.raised), iso(a.ended), iso(a.acked), a.message]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

export function alertsCommand(): Command {
  const alerts = new Command('alerts').description('alerts of watched devices: list them, acknowledge them');
  alerts
    .command('list')
    .description("a module's alerts (its own and its children's), newest first")
    .requiredOption('--module <serial>', 'module serial')
    .option('--open', 'only alerts whose condition has not ended')
    .option('--limit <n>', 'at most this many (up to 1000)', positiveInteger, 20)
    .option('--before <id>', 'only alerts older than this alert id (the next page)', positiveInteger)
    .option('--json', 'print a JSON array, as GET /iot/developers/alerts.json answers')
    .addHelpText('after', '\nExample:\n  snsr alerts list --module C0FE --open')
    .action(async (options: { module: string; open?: boolean; limit: number; before?: number; json?: boolean }) => {
      await withContext(async (context) => {
        const list = await context.alerts.listAny(options.module, {
          limit: options.limit,
          ...(options.open && { open: true }),
          ...(options.before !== undefined && { before: options.before }),
        });
        if (options.json) console.log(JSON.stringify(list.map(presentAlert), null, 2));
        else if (list.length === 0) console.log('no alerts');
        else console.log(table(list));
      });
    });
  alerts
    .command('ack')
    .description("acknowledge every alert of a device: its alerts_ack catches up with alerts")
    .argument('<serial>', "device serial: the module's, or a child's <serial>/<index>")
    .action(async (serial: string) => {
      await withContext(async (context) => {
        const { device, acknowledged } = await context.alerts.acknowledgeAny(serial);
        console.log(`${device.serial}: ${acknowledged} alert${acknowledged === 1 ? '' : 's'} acknowledged`);
      });
    });
  alerts
    .command('email')
    .description("show an account's alert emails setting, or turn it on or off (on needs SNSR_SMTP_URL)")
    .argument('[state]', 'on or off; without it, the setting is shown', onOff)
    .requiredOption('--account <email>', 'login of the account')
    .addHelpText('after', '\nExamples:\n  snsr alerts email --account dev@example.com\n  snsr alerts email on --account dev@example.com')
    .action(async (state: boolean | undefined, options: { account: string }) => {
      await withContext(async (context) => {
        const account = await context.accounts.byEmail(options.account);
        const setting = state === undefined ? await context.alertEmail.get(account.id) : await context.alertEmail.set(account.id, state);
        if (state !== undefined) {
          await context.audit.record({ accountId: account.id, action: 'alert.email', actor: { kind: 'operator' }, address: null, detail: { email: state } });
        }
        const note = setting.emailAvailable ? '' : ' (this server has no SMTP: SNSR_SMTP_URL is unset, so no email is sent)';
        console.log(`alert emails for ${account.email}: ${setting.email ? 'on' : 'off'}${note}`);
      });
    });
  return alerts;
}

function onOff(value: string): boolean {
  if (/^on$/i.test(value)) return true;
  if (/^off$/i.test(value)) return false;
  throw new InvalidArgumentError('must be on or off');
}
