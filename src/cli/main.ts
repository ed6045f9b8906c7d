#!/usr/bin/env node
import { Command } from 'commander';
import { VERSION } from '../version.js';
import { serveCommand } from './commands/serve.js';
import { migrateCommand } from './commands/migrate.js';
import { accountsCommand } from './commands/accounts.js';
import { catalogCommand } from './commands/catalog.js';
import { decodeCommand } from './commands/decode.js';
import { simulateCommand } from './commands/simulate.js';
import { workerCommand } from './commands/worker.js';
import { deliveriesCommand } from './commands/deliveries.js';
import { appsCommand } from './commands/apps.js';
import { keysCommand } from './commands/keys.js';
import { alertsCommand } from './commands/alerts.js';
import { backupCommand } from './commands/backup.js';
import { modulesCommand } from './commands/modules.js';
import { exportCommand } from './commands/export.js';
import { retentionCommand } from './commands/retention.js';
import { copyDataCommand } from './commands/copy-data.js';
import { describeError } from './describe-error.js';
import { CommanderError, commanderExitCode, EXIT, throwInsteadOfExit } from './exit-code.js';
import { loadDotEnv } from './load-dot-env.js';

const program = new Command('snsr')
  .description('snsr: a self-hosted device cloud for Sigfox sensor modules')
  .version(VERSION)
  .showHelpAfterError()
  .addHelpText(
    'after',
    '\nConfiguration comes from environment variables (see .env.example), and from a .env file in the working\ndirectory (the environment wins); every command reads the same ones.\n\nExit codes: 0 success, 1 failure, 2 wrong command line.',
  )
  .addCommand(serveCommand())
  .addCommand(migrateCommand())
  .addCommand(accountsCommand())
  .addCommand(keysCommand())
  .addCommand(catalogCommand())
  .addCommand(modulesCommand())
  .addCommand(decodeCommand())
  .addCommand(simulateCommand())
  .addCommand(workerCommand())
  .addCommand(appsCommand())
  .addCommand(deliveriesCommand())
  .addCommand(alertsCommand())
  .addCommand(backupCommand())
  .addCommand(exportCommand())
  .addCommand(retentionCommand())
  .addCommand(copyDataCommand());
throwInsteadOfExit(program);

try {
  loadDotEnv();
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(commanderExitCode(error));
  console.error(`snsr: ${describeError(error)}`);
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(error);
  process.exit(EXIT.failure);
}
