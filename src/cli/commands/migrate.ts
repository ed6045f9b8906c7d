import { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { openStorage } from '../../storage/storage.js';
import { migrateToLatest } from '../../storage/migrate.js';

export function migrateCommand(): Command {
  return new Command('migrate').description('bring the database schema up to date, then exit').action(async () => {
    const storage = await openStorage(loadConfig().databaseUrl);
    try {
      const result = await migrateToLatest(storage.db, storage.capabilities);
      const applied = (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
      console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'schema is up to date');
    } finally {
      await storage.close();
    }
  });
}
