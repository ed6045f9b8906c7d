import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, parseDatabaseUrl } from '../../config.js';
import { CopyError, DatabaseSideError } from '../../lifecycle/copy-errors.js';
import { DEFAULT_BATCH_SIZE } from '../../lifecycle/copy-batches.js';
import type { CopyProgress, CopyResult } from '../../lifecycle/copy-data.js';
import { describeError } from '../describe-error.js';
import { progressBar } from '../progress-bar.js';
import type { Progress } from '../progress-bar.js';

function batchSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > 100_000) {
    const error = new InvalidArgumentError('must be a whole number from 1 to 100000');
    error.exitCode = 2;
    throw error;
  }
  return size;
}

/** A database URL fit to print: the password is replaced by `***`. */
export function redacted(url: string): string {
  if (!/^postgres(ql)?:\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

/** A bar per table on a terminal; otherwise a line per finished table (and one every 10 s on a long one). */
function progressReporter(stream: NodeJS.WriteStream = process.stderr): (progress: CopyProgress) => void {
  let bar: Progress | undefined;
  let lastLine = performance.now();
  return ({ table, done, total, finished }) => {
    if (stream.isTTY) {
      bar ??= progressBar(table.padEnd(16), stream);
      bar.update(done, total);
      if (finished) {
        bar.stop();
        bar = undefined;
      }
      return;
    }
    if (finished || performance.now() - lastLine > 10_000) {
      stream.write(`${table}: ${done} of ${total} rows${finished ? ', done' : ''}\n`);
      lastLine = performance.now();
    }
  };
}

function summary(result: CopyResult, from: string, to: string, secretFromEnv: boolean): string {
  const width = Math.max(...result.tables.map((t) => t.table.length), 5);
  const total = result.tables.reduce((sum, t) => sum + t.rows, 0);
  const lines = [
    `copied ${redacted(from)} to ${redacted(to)} in ${(result.ms / 1000).toFixed(1)} s`,
    ...(result.replaced.length > 0 ? [`emptied first: ${result.replaced.join(', ')}`] : []),
    ...result.tables.map((t) => `  ${t.table.padEnd(width)}  ${String(t.rows).padStart(9)} rows  ${(t.ms / 1000).toFixed(1).padStart(6)} s`),
    `  ${'total'.padEnd(width)}  ${String(total).padStart(9)} rows`,
    'ids continue after the highest copied (sequences moved past them).',
  ];
  if (secretFromEnv) {
    lines.push('Device tokens and account tokens are signed with SNSR_SECRET: start snsr on the target with the same SNSR_SECRET, or they stop working.');
  } else if (result.secretCopied) {
    lines.push('The device-token secret was copied with the data: tokens, API keys and sessions keep working on the target.');
  }
  lines.push(`Next: stop snsr, set SNSR_DATABASE_URL=${redacted(to)} and start it again.`);
  return lines.join('\n');
}

export function copyDataCommand(): Command {
  return new Command('copy-data')
    .description('copy every table of the configured database into another (SQLite ⇄ PostgreSQL), in batches, as one consistent snapshot')
    .requiredOption('--to <database-url>', 'the database to copy into: a SQLite file (sqlite:PATH) or postgres://user:password@host:5432/database')
    .option('--replace', "delete the target's snsr data first (in the copy's transaction) instead of refusing a target that is not empty")
    .option('--batch-size <rows>', `rows read and written per batch (default ${DEFAULT_BATCH_SIZE})`, batchSize)
    .addHelpText(
      'after',
      '\nThe source is SNSR_DATABASE_URL, as for every command; it may keep serving: the copy reads one snapshot.\n' +
        'An empty target gets the schema (migrations); a target holding snsr rows is refused unless --replace.\n\n' +
        'Example:\n  snsr copy-data --to postgres://snsr:secret@db.example:5432/snsr',
    )
    .action(async (options: { to: string; replace?: boolean; batchSize?: number }) => {
      const config = loadConfig();
      try {
        parseDatabaseUrl(options.to);
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(error.message.replace('SNSR_DATABASE_URL', '--to'));
        throw error;
      }
      try {
        const { copyData } = await import('../../lifecycle/copy-data.js');
        const result = await copyData({
          from: config.databaseUrl,
          to: options.to,
          replace: options.replace === true,
          batchSize: options.batchSize,
          lockTimeoutMs: config.database.lockTimeoutMs,
          onProgress: progressReporter(),
        });
        console.log(summary(result, config.databaseUrl, options.to, config.secret !== undefined));
      } catch (error) {
        if (!(error instanceof DatabaseSideError)) throw error;
        const described = describeError(error.reason);
        const said = error.side === 'target' ? described.replace('check SNSR_DATABASE_URL', 'check --to') : described;
        throw new CopyError(`${error.side} database: ${said}; nothing was copied`);
      }
    });
}
