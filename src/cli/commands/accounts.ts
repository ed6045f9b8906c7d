import { Command } from 'commander';
import { withContext } from '../run-with-context.js';

export function accountsCommand(): Command {
  const accounts = new Command('accounts').description('developer accounts');
  accounts
    .command('create')
    .description('create a developer account; prints the account token on the last line')
    .requiredOption('--email <email>', 'login of the account')
    .requiredOption('--password <password>', 'at least 6 characters with upper case, lower case and a digit')
    .addHelpText('after', '\nExample:\n  snsr accounts create --email dev@example.com --password Secret123')
    .action(async (options: { email: string; password: string }) => {
      await withContext(async (context) => {
        const { account, token } = await context.accounts.create(options.email, options.password);
        console.log(`created account ${account.id} for ${account.email}`);
        console.log(token);
      });
    });
  accounts
    .command('token')
    .description("print an account's token (use it as `Authorization: Basic <token>`)")
    .requiredOption('--email <email>', 'login of the account')
    .option('--regenerate', 'replace the token; the old one stops working')
    .action(async (options: { email: string; regenerate?: boolean }) => {
      await withContext(async (context) => {
        const account = await context.accounts.byEmail(options.email);
        console.log(options.regenerate ? await context.accounts.regenerateToken(account) : context.accounts.token(account));
      });
    });
  accounts
    .command('password')
    .description("set an account's password (when its owner cannot reset it by email); ends its dashboard sessions")
    .requiredOption('--email <email>', 'login of the account')
    .requiredOption('--password <password>', 'at least 6 characters with upper case, lower case and a digit')
    .action(async (options: { email: string; password: string }) => {
      await withContext(async (context) => {
        const account = await context.accounts.byEmail(options.email);
        await context.accounts.setPassword(account, options.password, options.password);
        const ended = await context.sessions.endAll(account.id);
        await context.audit.record({ accountId: account.id, action: 'password.reset', actor: { kind: 'operator' }, address: null });
        console.log(`password of ${account.email} changed; ${ended} dashboard session(s) ended`);
      });
    });
  return accounts;
}
