#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError } from '../config.js';
import { DomainError } from '../domain/errors.js';
import { MigrationError } from '../storage/migrate.js';
import { VERSION } from '../version.js';
import { serveCommand } from './commands/serve.js';
import { migrateCommand } from './commands/migrate.js';
import { accountsCommand } from './commands/accounts.js';
import { catalogCommand } from './commands/catalog.js';
import { decodeCommand } from './commands/decode.js';
import { simulateCommand } from './commands/simulate.js';
import { workerCommand } from './commands/worker.js';
import { deliveriesCommand } from './commands/deliveries.js';
import { keysCommand } from './commands/keys.js';
import { alertsCommand } from './commands/alerts.js';

const program = new Command('snsr')
  .description('snsr: a self-hosted device cloud for Sigfox sensor modules')
  .version(VERSION)
  .showHelpAfterError()
  .addHelpText('after', '\nConfiguration comes from environment variables (see .env.example); every command reads the same ones.')
  .addCommand(serveCommand())
  .addCommand(migrateCommand())
  .addCommand(accountsCommand())
  .addCommand(keysCommand())
  .addCommand(catalogCommand())
  .addCommand(decodeCommand())
  .addCommand(simulateCommand())
  .addCommand(workerCommand())
  .addCommand(deliveriesCommand())
  .addCommand(alertsCommand());

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const known = error instanceof DomainError || error instanceof ConfigError || error instanceof MigrationError;
  console.error(`snsr: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(known ? 1 : 70);
}
