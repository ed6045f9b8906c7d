import { Command } from 'commander';
import { loadConfig, parseDatabaseUrl } from '../../config.js';

export function backupCommand(): Command {
  return new Command('backup')
    .description('copy the SQLite database to FILE while snsr keeps serving (PostgreSQL: explains pg_dump)')
    .argument('<file>', 'the backup file to write (a new file)')
    .option('--force', 'replace FILE if it exists')
    .addHelpText('after', '\nExample:\n  snsr backup ./backups/snsr-$(date +%F).sqlite')
    .action(async (file: string, options: { force?: boolean }) => {
      const target = parseDatabaseUrl(loadConfig().databaseUrl);
      // better-sqlite3 is loaded when a backup is taken, not for every command's start.
      const { BackupError, backupSqlite, postgresBackupAdvice, restoreInstructions } = await import('../../lifecycle/backup.js');
      if (target.dialect === 'postgres') throw new BackupError(postgresBackupAdvice(target, file));
      const result = await backupSqlite(target.path, file, { overwrite: options.force === true });
      const megabytes = (result.bytes / 1_048_576).toFixed(1);
      console.log(`backed up ${target.path} to ${result.file}: ${result.pages} pages, ${megabytes} MB in ${(result.ms / 1000).toFixed(1)} s; integrity ok`);
      console.log(restoreInstructions(target.path, result.file));
    });
}
