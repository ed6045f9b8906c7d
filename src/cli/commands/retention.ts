import { Command, InvalidArgumentError } from 'commander';
import type { Context } from '../../context.js';
import { notFound } from '../../domain/errors.js';
import { normalizeSerial } from '../../domain/modules.js';
import type { AppRetentionView, RetentionSource, RetentionView } from '../../domain/retention.js';
import { EXIT } from '../exit-code.js';
import { withContext } from '../run-with-context.js';
import type { ModuleRetention } from '../../storage/retention-repository.js';
import { positiveInteger } from './deliveries.js';

/**
 * `--messages-days N`: N days (0 forever); `default` or an empty value clears the choice (kept as
 * the word: Commander turns an option's null into an empty string).
 */
function daysOption(value: string): number | 'default' {
  if (value.trim() === '' || value.trim() === 'default') return 'default';
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a number of days (0: forever), or "default"');
  return Number(value);
}

const kept = (days: number) => (days === 0 ? 'kept forever' : `${days} ${days === 1 ? 'day' : 'days'}`);
const line = (label: string, value: string) => `${label.padEnd(12)}${value}`;

function sourceText(source: RetentionSource): string {
  if (source.from === 'module') return "the module's own choice";
  if (source.from === 'app') return `app ${source.app} (${source.name}), the longest of its apps`;
  return "the operator's default";
}

function moduleText(view: RetentionView): string {
  return [
    `module ${view.serial}`,
    line('messages', `${kept(view.effective.messages_days)}: ${sourceText(view.source.messages_days)}`),
    line('raw', `${kept(view.effective.raw_days)}: ${sourceText(view.source.raw_days)}`),
  ].join('\n');
}

function appText(view: AppRetentionView): string {
  const choice = (days: number | null, fallback: number) => (days === null ? `no choice (the operator's default: ${kept(fallback)})` : kept(days));
  return [`app ${view.id}`, line('messages', choice(view.messages_days, view.defaults.messages_days)), line('raw', choice(view.raw_days, view.defaults.raw_days))].join('\n');
}

function defaultsText(context: Context): string {
  const { retention, delivery, accounts } = context.config;
  const rows: [string, number, string][] = [
    ['messages', retention.messagesDays, 'SNSR_RETENTION_MESSAGES_DAYS'],
    ['raw', retention.rawDays, 'SNSR_RETENTION_RAW_DAYS'],
    ['alerts', retention.alertsDays, 'SNSR_RETENTION_ALERTS_DAYS (ended ones)'],
    ['deliveries', delivery.retentionDays, 'SNSR_DELIVERY_RETENTION_DAYS (delivered ones)'],
    ['audit', accounts.auditRetentionDays, 'SNSR_AUDIT_RETENTION_DAYS'],
  ];
  return ["the operator's defaults", ...rows.map(([kind, days, name]) => line(kind, `${kept(days).padEnd(14)}${name}`))].join('\n');
}

interface Options {
  module?: string;
  app?: number;
  messagesDays?: number | 'default';
  rawDays?: number | 'default';
  json?: boolean;
}

/** The choice after the options: each given one replaces its kind, `default` clears it, the other stays. */
function merged(options: Options, current: { messages_days: number | null; raw_days: number | null }): ModuleRetention {
  const pick = (given: number | 'default' | undefined, now: number | null) => (given === undefined ? now : given === 'default' ? null : given);
  return { messagesDays: pick(options.messagesDays, current.messages_days), rawDays: pick(options.rawDays, current.raw_days) };
}

/** Shows or sets a module's or an app's choice as its owner would (audit-logged as the operator). */
async function run(context: Context, options: Options): Promise<string | object> {
  const setting = options.messagesDays !== undefined || options.rawDays !== undefined;
  if (options.module !== undefined) {
    const serial = normalizeSerial(options.module);
    const module = await context.repositories.modules.bySerial(serial);
    if (!module) throw notFound(`module ${serial} is not in the catalog`);
    if (module.accountId === null) throw notFound(`module ${serial} is not registered: it follows the operator's defaults`);
    let view = await context.retention.ofModule(module.accountId, serial);
    if (setting) {
      const choice = merged(options, view);
      view = await context.retention.setModule(module.accountId, serial, choice);
      await context.audit.record({ accountId: module.accountId, action: 'module.retention', actor: { kind: 'operator' }, address: null, detail: { sn: serial, messages_days: choice.messagesDays, raw_days: choice.rawDays } });
    }
    return options.json ? view : moduleText(view);
  }
  const appId = options.app!;
  const owner = await context.retention.appOwner(appId);
  let view = await context.retention.ofApp(owner, appId);
  if (setting) {
    const choice = merged(options, view);
    view = await context.retention.setApp(owner, appId, choice);
    await context.audit.record({ accountId: owner, action: 'app.retention', actor: { kind: 'operator' }, address: null, detail: { idApp: appId, messages_days: choice.messagesDays, raw_days: choice.rawDays } });
  }
  return options.json ? view : appText(view);
}

export function retentionCommand(): Command {
  return new Command('retention')
    .description("how long data is kept: the operator's defaults, or a module's or an app's choice (show, or set with --messages-days/--raw-days)")
    .option('--module <serial>', "a module: what is in force and where it comes from (its own choice, its apps' longest, the default)")
    .option('--app <id>', "an app: its choice for the modules attached to it", positiveInteger)
    .option('--messages-days <days>', 'set the messages retention in days (0: forever; "default": no choice)', daysOption)
    .option('--raw-days <days>', 'set the raw messages retention in days (0: forever; "default": no choice)', daysOption)
    .option('--json', 'print JSON, as the developer API answers')
    .addHelpText('after', '\nExamples:\n  snsr retention\n  snsr retention --module C0FE --messages-days 30 --raw-days 7\n  snsr retention --app 3 --messages-days 365 --raw-days default')
    .action(async (options: Options, command: Command) => {
      if (options.module !== undefined && options.app !== undefined) command.error('error: give --module or --app, not both', { exitCode: EXIT.usage });
      const setting = options.messagesDays !== undefined || options.rawDays !== undefined;
      if (setting && options.module === undefined && options.app === undefined) {
        command.error("error: --messages-days and --raw-days set a module's or an app's choice: name it with --module or --app (the defaults are environment variables)", { exitCode: EXIT.usage });
      }
      await withContext(async (context) => {
        const answer = options.module === undefined && options.app === undefined ? defaultsText(context) : await run(context, options);
        console.log(typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2));
      });
    });
}
