import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/storage.js';
import { SqlFileProvider, migrateToLatest, migrationsFolder } from '../../src/storage/migrate.js';
import { dialects, freshDatabase } from '../helpers/database.js';

describe.each(dialects)('migration 0015 on a %s database that ran every later migration first', (dialect) => {
  it('keeps deliveries (ids, later columns, indexes) and allows exactly one of message and alert', async () => {
    const database = await freshDatabase(dialect);
    const storage = await openStorage(database.url, { migrate: false });
    const db = storage.db;
    const q = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;
    try {
      // Every migration but 0015, as a database deployed before it landed: 0017's column and 0018's index exist.
      const all = await new SqlFileProvider(migrationsFolder(dialect)).getMigrations();
      const before = Object.fromEntries(Object.entries(all).filter(([name]) => !name.startsWith('0015_')));
      expect(Object.keys(before).length).toBe(Object.keys(all).length - 1);
      expect((await new Migrator({ db, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true }).migrateToLatest()).error).toBeUndefined();

      await sql`insert into accounts (email, password_hash, api_key_salt, created_at) values ('a@example.com', 'x', 'y', 0)`.execute(db);
      await sql`insert into apps (account_id, name, key, secret, created_at) select id, 'app', 'k', 's', 0 from accounts`.execute(db);
      await sql`insert into modules (serial, key, pac, imported_at) values ('C0FE', 'k', 'p', 0)`.execute(db);
      await sql`insert into devices (module_serial, idx, serial) values ('C0FE', 0, 'C0FE')`.execute(db);
      await sql`insert into messages (module_serial, device_id, when_ms, type, station, frame, frame_type, code, entry_id, stamp, cpt, retry, custom, contrib, ctxt)
        values ('C0FE', 1, 1000, 't', 's', 'f', 'ft', 'c', 0, 0, 0, 0, '{}', '{}', '{}'), ('C0FE', 1, 2000, 't', 's', 'f', 'ft', 'c', 0, 0, 0, 0, '{}', '{}', '{}')`.execute(db);
      await sql`insert into deliveries (uuid, app_id, message_id, status, next_attempt_at, created_at, updated_at, last_latency_ms)
        select 'u' || id, (select id from apps), id, 'failed', 0, 0, 0, 42 from messages`.execute(db);
      // The newest delivery is gone: its id must not be handed out again.
      await sql`delete from deliveries where id = (select max(id) from deliveries)`.execute(db);

      await migrateToLatest(db, storage.capabilities);

      expect(await q(sql`select id, uuid, message_id, alert_id, last_latency_ms from deliveries`)).toEqual([
        { id: 1, uuid: 'u1', message_id: 1, alert_id: null, last_latency_ms: 42 },
      ]);
      const indexes = await q(
        dialect === 'postgres'
          ? sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'deliveries' order by 1`
          : sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'deliveries' and sql is not null order by 1`,
      );
      expect(indexes.map((row) => row.name)).toEqual(expect.arrayContaining(['deliveries_app_updated', 'deliveries_app_failed', 'deliveries_app_message', 'deliveries_app_alert', 'deliveries_alert']));

      await sql`insert into alerts (account_id, module_serial, device_id, kind, message, raised_at) values (1, 'C0FE', 1, 'tamper', 'x', 0)`.execute(db);
      const [next] = await q(sql<{ id: number }>`insert into deliveries (uuid, app_id, alert_id, status, next_attempt_at, created_at, updated_at)
        values ('a1', 1, 1, 'pending', 0, 0, 0) returning id`);
      expect(Number(next!.id)).toBe(3);
      // Neither, or both: refused.
      await expect(sql`insert into deliveries (uuid, app_id, status, next_attempt_at, created_at, updated_at) values ('n', 1, 'pending', 0, 0, 0)`.execute(db)).rejects.toThrow(/check/i);
      await expect(sql`insert into deliveries (uuid, app_id, message_id, alert_id, status, next_attempt_at, created_at, updated_at) values ('b', 1, 1, 1, 'pending', 0, 0, 0)`.execute(db)).rejects.toThrow(/check/i);
      // One delivery per alert and app.
      await expect(sql`insert into deliveries (uuid, app_id, alert_id, status, next_attempt_at, created_at, updated_at) values ('a2', 1, 1, 'pending', 0, 0, 0)`.execute(db)).rejects.toThrow(/unique|duplicate/i);
      // Deleting the alert (retention) takes its deliveries; deleting a message still takes its own.
      await sql`delete from alerts`.execute(db);
      await sql`delete from messages where id = 1`.execute(db);
      expect(await q(sql`select id from deliveries`)).toEqual([]);
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
