import { Command } from 'commander';
import { loadConfig } from '../../config.js';

export function migrateCommand(): Command {
  return new Command('migrate').description('bring the database schema up to date, then exit').action(async () => {
    const [{ openStorage }, { migrateToLatest }] = await Promise.all([import('../../storage/storage.js'), import('../../storage/migrate.js')]);
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
