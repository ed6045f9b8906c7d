import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/storage.js';
import { SqlFileProvider, migrateToLatest, migrationsFolder } from '../../src/storage/migrate.js';
import { dialects, freshDatabase } from '../helpers/database.js';

const T0 = 1_700_000_000; // 2023-11-14, a month long gone
const DAY_S = 86_400;

describe.runIf(dialects.includes('postgres'))('migration 0014 on a PostgreSQL database holding data', () => {
  it('moves every row into month partitions and keeps ids, sequences, identity keys and cascades', async () => {
    const database = await freshDatabase('postgres');
    const storage = await openStorage(database.url);
    const db = storage.db;
    const q = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;
    const count = async (table: string) => Number((await q(sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`))[0]!.n);
    try {
      const all = await new SqlFileProvider(migrationsFolder('postgres')).getMigrations();
      const before = Object.fromEntries(Object.entries(all).filter(([name]) => !name.startsWith('0014_')));
      expect(Object.keys(before).length).toBe(Object.keys(all).length - 1);
      expect((await new Migrator({ db, provider: { getMigrations: async () => before }, allowUnorderedMigrations: true }).migrateToLatest()).error).toBeUndefined();

      await sql`insert into accounts (email, password_hash, api_key_salt, created_at) values ('a@example.com', 'x', 'y', 0)`.execute(db);
      await sql`insert into apps (account_id, name, key, secret, created_at) select id, 'app', 'k', 's', 0 from accounts`.execute(db);
      await sql`insert into modules (serial, key, pac, imported_at) values ('C0FE', 'k', 'p', 0)`.execute(db);
      await sql`insert into devices (module_serial, idx, serial) values ('C0FE', 0, 'C0FE')`.execute(db);
      // 100 uplinks a day apart over four months, and one with a network time of 1970 (no month is made for it).
      await sql`insert into raw_messages (module_serial, seq_number, time_s, data, received_at)
        select 'C0FE', g, ${T0}::bigint + g * ${DAY_S}, 'ab', (${T0}::bigint + g * ${DAY_S}) * 1000 from generate_series(1, 100) g`.execute(db);
      await sql`insert into raw_messages (module_serial, seq_number, time_s, data, received_at) values ('C0FE', 1, 5, 'x', 5000)`.execute(db);
      await sql`insert into rinfos (raw_id, tap, rssi, snr) select id, '1A2B', -120, 10 from raw_messages`.execute(db);
      await sql`insert into messages (module_serial, device_id, raw_id, when_ms, type, station, frame, frame_type, code, entry_id, stamp, cpt, retry, custom, contrib, ctxt)
        select 'C0FE', 1, id, received_at, 't', 's', 'f', 'ft', 'c', 0, 0, 0, 0, '{}', '{}', '{}' from raw_messages`.execute(db);
      await sql`insert into deliveries (uuid, app_id, message_id, status, next_attempt_at, created_at, updated_at)
        select 'u' || id, (select id from apps), id, 'failed', 0, 0, 0 from messages`.execute(db);
      const ids = await q(sql<{ raw: string; message: string }>`select (select max(id) from raw_messages) as raw, (select max(id) from messages) as message`);

      await migrateToLatest(db, storage.capabilities);

      const kinds = await q(sql<{ relname: string; relkind: string }>`select relname, relkind from pg_class where relname in ('messages', 'raw_messages') order by 1`);
      expect(kinds).toEqual([{ relname: 'messages', relkind: 'p' }, { relname: 'raw_messages', relkind: 'p' }]);
      expect({ raw: await count('raw_messages'), messages: await count('messages'), rinfos: await count('rinfos'), deliveries: await count('deliveries') }).toEqual({ raw: 101, messages: 101, rinfos: 101, deliveries: 101 });
      const placed = await q(sql<{ part: string; n: number }>`select tableoid::regclass::text as part, count(*) as n from raw_messages group by 1 order by 1`);
      expect(placed).toEqual([
        { part: 'raw_messages_default', n: 1 },
        { part: 'raw_messages_y2023m11', n: 16 },
        { part: 'raw_messages_y2023m12', n: 31 },
        { part: 'raw_messages_y2024m01', n: 31 },
        { part: 'raw_messages_y2024m02', n: 22 },
      ]);
      expect(await count('messages_y2023m12')).toBe(31);

      // Identity sequences continue after the copied ids.
      const [next] = await q(sql<{ id: string }>`insert into messages (module_serial, device_id, when_ms, type, station, frame, frame_type, code, entry_id, stamp, cpt, retry, custom, contrib, ctxt)
        values ('C0FE', 1, ${Date.now()}, 't', 's', 'f', 'ft', 'c', 0, 0, 0, 0, '{}', '{}', '{}') returning id`);
      expect(Number(next!.id)).toBe(Number(ids[0]!.message) + 1);
      // The uplink identity still holds through the parent: the same uplink again inserts nothing.
      const again = await q(sql`insert into raw_messages (module_serial, seq_number, time_s, data, received_at) values ('C0FE', 1, ${T0 + DAY_S}, 'ab', 0)
        on conflict (module_serial, seq_number, time_s) where seq_number is not null do nothing returning id`);
      expect(again).toEqual([]);
      const [raw] = await q(sql<{ id: string }>`insert into raw_messages (module_serial, seq_number, time_s, data, received_at) values ('C0FE', 7, ${Math.floor(Date.now() / 1000)}, 'ab', 0) returning id`);
      // The refused insert drew one value from the sequence, as it always did.
      expect(Number(raw!.id)).toBe(Number(ids[0]!.raw) + 2);

      const indexes = await q(sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'raw_messages' order by 1`);
      expect(indexes.map((i) => i.indexname)).toEqual(['raw_messages_history', 'raw_messages_identity', 'raw_messages_identity_noseq', 'raw_messages_pkey', 'raw_messages_received']);

      // The cascades the foreign keys did: a message's deliveries, a raw message's rinfos and references.
      await sql`delete from messages where when_ms < ${(T0 + 10 * DAY_S) * 1000} and when_ms > 5000`.execute(db);
      expect(await count('deliveries')).toBe(92);
      await sql`delete from raw_messages where seq_number = 50`.execute(db);
      expect(await count('rinfos')).toBe(100);
      expect(Number((await q(sql<{ n: string }>`select count(*) as n from messages where raw_id is null`))[0]!.n)).toBe(2);
      await sql`delete from modules`.execute(db);
      expect({ raw: await count('raw_messages'), messages: await count('messages'), rinfos: await count('rinfos'), deliveries: await count('deliveries') }).toEqual({ raw: 0, messages: 0, rinfos: 0, deliveries: 0 });
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
