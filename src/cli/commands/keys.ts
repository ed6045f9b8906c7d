import { Command, InvalidArgumentError } from 'commander';
import type { ApiKey } from '../../domain/types.js';
import { withContext } from '../run-with-context.js';

const iso = (date: Date | null) => (date === null ? '-' : date.toISOString().replace(/\.\d{3}Z$/, 'Z'));

/** `30d`, `12h`, `90m` from now, or an ISO 8601 date. */
export function parseExpiry(value: string): Date {
  const relative = /^(\d+)([dhm])$/.exec(value.trim());
  const date = relative
    ? new Date(Date.now() + Number(relative[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'])
    : new Date(value);
  if (Number.isNaN(date.getTime())) throw usage('must be a duration such as 30d, 12h or 90m, or an ISO 8601 date');
  return date;
}

/** A bad command line exits with 2, like every other usage error. */
function usage(message: string): InvalidArgumentError {
  const error = new InvalidArgumentError(message);
  error.exitCode = 2;
  return error;
}

function scope(value: string): string {
  if (value !== 'read' && value !== 'full') throw usage('must be read or full');
  return value;
}

function table(keys: ApiKey[]): string {
  const rows = [
    ['ID', 'NAME', 'PREFIX', 'SCOPE', 'CREATED', 'EXPIRES', 'LAST USED'],
    ...keys.map((k) => [String(k.id), k.name, k.prefix, k.scope, iso(k.created), iso(k.expires), iso(k.lastUsed)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  ')).join('\n');
}

export function keysCommand(): Command {
  const keys = new Command('keys').description("an account's named API keys (used like the account token: Authorization: Basic <token>)");
  keys
    .command('create')
    .description('create an API key; prints its token on the last line (shown once)')
    .requiredOption('--email <email>', 'login of the account')
    .requiredOption('--name <name>', 'a name to recognise the key by (unique in the account)')
    .option('--scope <scope>', 'read (GET only) or full (everything)', scope, 'full')
    .option('--expires <when>', 'a duration (30d, 12h, 90m) or an ISO 8601 date; default: never', parseExpiry)
    .addHelpText('after', '\nExample:\n  snsr keys create --email dev@example.com --name grafana --scope read --expires 90d')
    .action(async (options: { email: string; name: string; scope: string; expires?: Date }) => {
      await withContext(async (context) => {
        const account = await context.accounts.byEmail(options.email);
        const { key, token } = await context.apiKeys.create(account, { name: options.name, scope: options.scope, expires: options.expires ?? null });
        await context.audit.record({ accountId: account.id, action: 'key.create', actor: { kind: 'operator' }, address: null, detail: { id: key.id, name: key.name, prefix: key.prefix, scope: key.scope } });
        console.log(`created ${key.scope} API key ${key.id} "${key.name}" (${key.prefix}…) for ${account.email}, expires ${iso(key.expires)}`);
        console.log(token);
      });
    });
  keys
    .command('list')
    .description("an account's API keys (never their secrets)")
    .requiredOption('--email <email>', 'login of the account')
    .option('--json', 'print a JSON array, as GET /iot/developers/keys.json answers')
    .action(async (options: { email: string; json?: boolean }) => {
      await withContext(async (context) => {
        const list = await context.apiKeys.list((await context.accounts.byEmail(options.email)).id);
        if (options.json) console.log(JSON.stringify(list.map((k) => ({ id: k.id, name: k.name, prefix: k.prefix, scope: k.scope, created: k.created.getTime(), expires: k.expires?.getTime() ?? null, last_used: k.lastUsed?.getTime() ?? null })), null, 2));
        else if (list.length === 0) console.log('no API keys');
        else console.log(table(list));
      });
    });
  keys
    .command('revoke')
    .description('revoke an API key, by name: it stops working at once')
    .requiredOption('--email <email>', 'login of the account')
    .requiredOption('--name <name>', "the key's name")
    .action(async (options: { email: string; name: string }) => {
      await withContext(async (context) => {
        const account = await context.accounts.byEmail(options.email);
        const key = await context.apiKeys.revokeByName(account.id, options.name);
        await context.audit.record({ accountId: account.id, action: 'key.revoke', actor: { kind: 'operator' }, address: null, detail: { id: key.id, name: key.name, prefix: key.prefix } });
        console.log(`revoked API key ${key.id} "${key.name}" (${key.prefix}…) of ${account.email}`);
      });
    });
  return keys;
}
