// The history bench's data: a database of 1,000 modules, each with one child device and a device
// token, filled with messages directly in SQL as ingestion would have stored them.
import { sql } from 'kysely';
import type { Context } from '../../src/context.js';
import { messageBody } from '../../src/wire/message.js';

export const MODULES = 1000;
const T0 = Date.UTC(2024, 0, 1);

const serial = (i: number): string => (0x1000 + i).toString(16).toUpperCase();
const key = (i: number): string => (0x10000000 + i * 7919).toString(16).toUpperCase();
const pac = (i: number): string => `${key(i)}${key(i + 1)}`;

/** ~300 bytes, like the device context ingestion stores with each message. */
const CTXT = JSON.stringify({
  index: 0, serial: 'XXXX', active: true, watched: false, alerts: 0, alerts_ack: 0, losts: 3, msgs: 1000,
  battery: 'ON', level: 'ON', network: 'ON', tamper: 'OFF', temp: 'OK', status: 'UNDEFINED', type: 'OTHER',
});

/**
 * Messages `from` to `to` (exclusive) of every module, in one INSERT … SELECT per slice: the module's
 * own device takes even ones (keep-alives), its child odd ones (temperature events). Uplinks of all
 * modules interleave in time as they would arrive, 10 minutes apart per module. Each with its wire
 * form in `body`, as ingestion writes it (`populate` checks this text against `messageBody`'s).
 */
export async function fill(context: Context, from: number, to: number): Promise<void> {
  const db = context.storage.db;
  const postgres = context.storage.capabilities.dialect === 'postgres';
  const SLICE = 50;
  for (let start = from; start < to; start += SLICE) {
    const end = Math.min(to, start + SLICE);
    const source = postgres
      ? sql`generate_series(${sql.lit(start)}::bigint, ${sql.lit(end - 1)}::bigint) AS seq(k)`
      : sql`seq`;
    const prefix = postgres ? sql`` : sql`WITH RECURSIVE seq(k) AS (SELECT ${sql.lit(start)} UNION ALL SELECT k + 1 FROM seq WHERE k + 1 < ${sql.lit(end)}) `;
    await sql`${prefix}INSERT INTO messages
        (module_serial, device_id, raw_id, when_ms, time_s, type, station, lvl, frame, frame_type, code, entry_id, stamp, cpt, retry, custom, contrib, ctxt, body)
      SELECT m.module_serial, m.device_id, m.raw_id, m.when_ms, m.time_s, m.type, m.station, m.lvl, m.frame, m.frame_type, m.code,
        m.entry_id, m.stamp, m.cpt, m.retry, m.custom, m.contrib, m.ctxt, '{"when":' || m.when_ms || ',"lvl":"-120.5","station":"1B2C","type":"' || m.type || '","device":"' || m.serial ||
        '","extra":{"message":"' || m.frame || '","time":' || m.time_s || ',' || substr(m.custom, 2, length(m.custom) - 2) ||
        '},"contrib":' || m.contrib || ',"ctxt":' || m.ctxt || ',"received":' || m.when_ms || ',"payload":"' || m.frame || '"}'
      FROM (SELECT d.module_serial, d.id AS device_id, CAST(NULL AS BIGINT) AS raw_id, ${sql.lit(T0)} + seq.k * 600000 + (d.id % 600) * 1000 AS when_ms,
        ${sql.lit(T0 / 1000)} + seq.k * 600 + (d.id % 600) AS time_s,
        CASE WHEN d.idx = 0 THEN 'keepalive:voltagetemp' ELSE 'event:templow' END AS type,
        '1B2C' AS station, -120.5 AS lvl,
        CASE WHEN d.idx = 0 THEN '020300189167' ELSE '25100632' END AS frame,
        CASE WHEN d.idx = 0 THEN 'srv_frm_keepalive' ELSE 'srv_frm_event' END AS frame_type,
        CASE WHEN d.idx = 0 THEN 'keepalive_voltage_temp' ELSE 'event_temp_low' END AS code,
        d.idx AS entry_id, 2 AS stamp, 5 AS cpt, 0 AS retry,
        CASE WHEN d.idx = 0 THEN '{"interval_h":24,"voltage_mv":3300,"temperature_c":21.5}' ELSE '{"temperature_c":-5}' END AS custom,
        CASE WHEN d.idx = 0 THEN '{"network":"ON"}' ELSE '{"temp":"LOW"}' END AS contrib,
        ${CTXT} AS ctxt, d.serial
      FROM ${source} JOIN devices d ON d.idx = seq.k % 2) AS m`.execute(db);
  }
  // Each module's newest message time, as ingestion keeps it (PostgreSQL pages start from it).
  await sql`UPDATE modules SET last_when_ms = (SELECT max(when_ms) FROM messages WHERE messages.module_serial = modules.serial)`.execute(db);
  await settle(context);
}

/**
 * The table as a server that has run a while keeps it, so that the measurement does not pay for
 * the fill: on PostgreSQL statistics taken, vacuumed (else autovacuum scans the new millions of
 * rows during the measured rounds) and checkpointed; on SQLite the WAL written back. SQLite gets no
 * statistics, as snsr never takes them there: with ANALYZE's samples (sqlite_stat4) SQLite plans
 * every query on an indexed column again at each run, a cost no snsr server pays.
 */
async function settle(context: Context): Promise<void> {
  const db = context.storage.db;
  if (context.storage.capabilities.dialect === 'postgres') {
    await sql`VACUUM (ANALYZE) messages`.execute(db);
    await sql`CHECKPOINT`.execute(db).catch(() => {}); // superusers only; the bench's own database usually is
  } else {
    await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  }
}

/** The bodies `fill` writes in SQL must be what ingestion writes, or the bench measures another answer. */
async function checkBodies(context: Context): Promise<void> {
  const rows = await context.storage.db
    .selectFrom('messages')
    .innerJoin('devices', 'devices.id', 'messages.device_id')
    .selectAll('messages')
    .select('devices.serial as device_serial')
    .limit(4)
    .execute();
  for (const row of rows) {
    if (row.body !== messageBody(row, row.device_serial)) throw new Error(`bench body ${row.body} is not the wire form ${messageBody(row, row.device_serial)}`);
  }
}

/** How many messages the database holds. */
export async function count(context: Context): Promise<number> {
  const row = await context.storage.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The modules, their children and a device token each, and `perModule` messages of every module:
 * answers the tokens, one per module.
 */
export async function populate(context: Context, perModule: number): Promise<string[]> {
  await context.repositories.modules.importCatalog(Array.from({ length: MODULES }, (_, i) => ({ serial: serial(i), key: key(i), pac: pac(i) })));
  await context.storage.db
    .insertInto('devices')
    .values(Array.from({ length: MODULES }, (_, i) => ({ module_serial: serial(i), idx: 1, serial: `${serial(i)}/1` })))
    .execute();
  const tokens = await Promise.all(Array.from({ length: MODULES }, (_, i) => context.devices.issueToken(serial(i), key(i))));
  await fill(context, 0, perModule);
  await checkBodies(context);
  return tokens;
}
