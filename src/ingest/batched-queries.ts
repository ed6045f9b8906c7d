// PostgreSQL: the statements every uplink runs, each serving a whole round of uplinks (round.ts) in
// one round trip — arrays unnested into rows, results matched back to the uplinks by module. A round
// holds one uplink per module, and with it the copies other stations heard (group-commit twins):
// those reach only the statements that store raw messages and receptions, which serve copies in
// their order, the first as it would be served alone, the later ones as if after it. Fixed texts,
// run as named statements, so PostgreSQL plans them once without knowing the arrays: every row is
// found through its unique index (a LATERAL lookup per array element, or `= ANY(ids)` beside the
// join), never by a join the planner might choose to make by scanning a table that grows. A LATERAL
// lookup of one row by a unique key says LIMIT 1: a plain subquery would be flattened into a join,
// and planned while the table is small that is a hash join over a sequential scan.
import type { DeviceRow } from '../storage/schema.js';
import type { BatchedStatement } from './round.js';
import { columns, hot, insertedOnce, matched, rows } from './unnest.js';
import type { ModuleWithDevice, RawValues, RecentFrame } from './ingest-queries.js';

const LOCK_MODULES = hot(
  'SELECT x.* FROM unnest($1::text[]) WITH ORDINALITY s(serial, n) CROSS JOIN LATERAL (' +
    'SELECT d.*, m.protocol AS m_protocol, m.last_cpt AS m_last_cpt, m.last_seq AS m_last_seq, m.last_time_s AS m_last_time_s, ' +
    'm.last_when_ms AS m_last_when_ms, m.account_id AS m_account_id, EXISTS (SELECT 1 FROM app_modules am JOIN apps a ON a.id = am.app_id ' +
    'WHERE am.module_serial = m.serial AND a.callback_url IS NOT NULL) AS m_callbacks ' +
    'FROM modules m JOIN devices d ON d.module_serial = m.serial AND d.idx = 0 ' +
    'WHERE m.serial = s.serial FOR UPDATE) x ORDER BY s.n',
);

/** The modules with their own devices, locked until commit, in serial order. */
export const lockModules: BatchedStatement<string, ModuleWithDevice | undefined> = {
  async run(trx, serials) {
    // Looked up and locked one by one in the array's order: every batch locks its modules in serial order.
    const sorted = [...new Set(serials)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return matched(serials, await rows<ModuleWithDevice>(trx, LOCK_MODULES, [sorted]), (s) => s, (row) => row.module_serial);
  },
};

const RAW_INSERT =
  'WITH r AS (INSERT INTO raw_messages (module_serial, seq_number, time_s, data, snr, avg_snr, lat, lng, received_at) ' +
  'SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::text[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::bigint[]) ';
// The first station's reception goes in with a raw message that is new (nothing to conflict with),
// in the same statement: one round trip fewer per uplink. Matched by module, unique in a round.
const FIRST_RINFOS =
  'RETURNING id, module_serial), i AS (INSERT INTO rinfos (raw_id, tap, rssi, snr) SELECT r.id, s.tap, s.rssi, s.snr FROM r ' +
  'JOIN unnest($1::text[], $10::text[], $11::float8[], $12::float8[]) s(serial, tap, rssi, snr) ON s.serial = r.module_serial WHERE s.tap IS NOT NULL) ' +
  'SELECT id, module_serial FROM r';
const INSERT_RAW_BY_SEQ = hot(`${RAW_INSERT}ON CONFLICT (module_serial, seq_number, time_s) WHERE seq_number IS NOT NULL DO NOTHING ${FIRST_RINFOS}`);
const INSERT_RAW_NO_SEQ = hot(`${RAW_INSERT}ON CONFLICT (module_serial, time_s, data) WHERE seq_number IS NULL DO NOTHING ${FIRST_RINFOS}`);

/** A raw message's columns, then its first station's reception (tap, rssi, snr; a null tap: none). */
export type RawWithRinfo = [...RawValues, string | null, number | null, number | null];

function insertRaw(text: string): BatchedStatement<RawWithRinfo, number | undefined> {
  return {
    async run(trx, args) {
      const inserted = await insertedOnce(args, (arg) => arg[0], (row: { id: number; module_serial: string }) => row.module_serial, (sent) => rows(trx, text, columns(sent, 12)));
      return inserted.map((row) => row?.id);
    },
  };
}

/** Inserts the raw messages not stored yet (see ingest-queries.ts), with their first rinfo; each one's id, or undefined. */
export const insertRawBySeq = insertRaw(INSERT_RAW_BY_SEQ);
export const insertRawNoSeq = insertRaw(INSERT_RAW_NO_SEQ);

const FIND_RAW_BY_SEQ = hot(
  'SELECT r.id, r.snr, r.module_serial FROM unnest($1::text[], $2::integer[], $3::bigint[]) u(serial, seq, time_s) CROSS JOIN LATERAL (' +
    'SELECT id, snr, module_serial FROM raw_messages WHERE module_serial = u.serial AND seq_number = u.seq AND time_s = u.time_s LIMIT 1) r',
);

/** The stored raw messages of these (serial, sequence number, time). */
export const findRawBySeq: BatchedStatement<[string, number, number], { id: number; snr: number | null } | undefined> = {
  async run(trx, args) {
    const found = await rows<{ id: number; snr: number | null; module_serial: string }>(trx, FIND_RAW_BY_SEQ, columns(args, 3));
    return matched(args, found, (arg) => arg[0], (row) => row.module_serial).map((row) => row && { id: row.id, snr: row.snr });
  },
};

const INSERT_RINFOS = hot(
  'INSERT INTO rinfos (raw_id, tap, rssi, snr) SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::float8[]) ' +
    'ON CONFLICT (raw_id, tap) DO NOTHING RETURNING raw_id, tap',
);

/** Adds each station's reception; true where that station had not reported the uplink before. */
export const insertRinfos: BatchedStatement<[number, string, number | null, number | null], boolean> = {
  async run(trx, args) {
    const reception = (rawId: number, tap: string) => `${rawId} ${tap}`;
    const inserted = await insertedOnce(
      args,
      ([rawId, tap]) => reception(rawId, tap),
      (row: { raw_id: number; tap: string }) => reception(row.raw_id, row.tap),
      (sent) => rows(trx, INSERT_RINFOS, columns(sent, 4)),
    );
    return inserted.map((found) => found !== undefined);
  },
};

const SET_RAW_SNR = hot('UPDATE raw_messages r SET snr = GREATEST(r.snr, u.snr) FROM unnest($1::bigint[], $2::float8[]) u(id, snr) WHERE r.id = u.id AND r.id = ANY($1::bigint[])');

/**
 * Raises each raw message's SNR to the given one where that is better. Copies of one uplink in a round
 * decide on the SNR they read together, and may raise it in successive statements: never lowered.
 */
export const setRawSnr: BatchedStatement<[number, number], void> = {
  async run(trx, args) {
    const best = new Map<number, number>();
    for (const [id, snr] of args) best.set(id, Math.max(snr, best.get(id) ?? snr));
    await rows(trx, SET_RAW_SNR, columns([...best], 2));
    return args.map(() => undefined);
  },
};

/** An UPDATE of modules from unnested arrays (`values`), the rows found by `serials` on the primary key. */
export const SET_MODULES = (serials: string, values: string) =>
  'UPDATE modules m SET last_cpt = COALESCE(u.cpt, m.last_cpt), last_seq = COALESCE(u.seq, m.last_seq), ' +
  'last_time_s = COALESCE(u.time_s, m.last_time_s), last_when_ms = COALESCE(u.when_ms, m.last_when_ms) ' +
  `FROM unnest(${values}) u(serial, cpt, seq, time_s, when_ms) WHERE m.serial = u.serial AND m.serial = ANY(${serials})`;
const UPDATE_MODULES = hot(SET_MODULES('$1::text[]', '$1::text[], $2::integer[], $3::integer[], $4::bigint[], $5::bigint[]'));

/** A module's serial and state after its uplink: counters, network time, last `when`; a NULL leaves its column as it is. */
export type ModuleState = [string, number | null, number | null, number | null, number | null];

/** Each module's state after its uplink. */
export const updateModuleStates: BatchedStatement<ModuleState, void> = {
  async run(trx, args) {
    await rows(trx, UPDATE_MODULES, columns(args, 5));
    return args.map(() => undefined);
  },
};

const CHILD_DEVICES = hot(
  'SELECT d.* FROM unnest($1::text[], $2::integer[]) s(serial, idx) CROSS JOIN LATERAL ' +
    '(SELECT * FROM devices WHERE module_serial = s.serial AND idx = s.idx LIMIT 1) d',
);

/** A statement taking (module serial, device index) pairs and answering each with its device row, or undefined. */
function devicesByIndex(text: string): BatchedStatement<[string, number], DeviceRow | undefined> {
  return {
    async run(trx, args) {
      return matched(args, await rows<DeviceRow>(trx, text, columns(args, 2)), ([serial, idx]) => `${serial}/${idx}`, (row) => `${row.module_serial}/${row.idx}`);
    },
  };
}

/** Each module's device of that index, or undefined where there is none yet. */
export const childDevices = devicesByIndex(CHILD_DEVICES);

const CREATE_CHILD_DEVICES = hot(
  'INSERT INTO devices (module_serial, idx, serial) SELECT serial, idx, serial || \'/\' || idx FROM unnest($1::text[], $2::integer[]) s(serial, idx) ' +
    'ON CONFLICT (module_serial, idx) DO NOTHING RETURNING *',
);

/**
 * Creates each module's device of that index, found missing under the module's lock; each new row,
 * or undefined where the insert did nothing (the device exists after all).
 */
export const createChildDevices = devicesByIndex(CREATE_CHILD_DEVICES);

const RECENT_FRAMES = hot(
  'SELECT s.serial, r.entry_id, r.frame_type, r.stamp, r.frame FROM unnest($1::text[]) s(serial) CROSS JOIN LATERAL ' +
    '(SELECT entry_id, frame_type, stamp, frame FROM messages WHERE module_serial = s.serial ' +
    'ORDER BY module_serial DESC, when_ms DESC, id DESC LIMIT $2::integer) r',
);

/** Each module's newest messages, newest first, at most `limit` (the same for every call of a round). */
export const recentFrames: BatchedStatement<[string, number], RecentFrame[]> = {
  async run(trx, args) {
    const serials = [...new Set(args.map(([serial]) => serial))];
    const found = await rows<RecentFrame & { serial: string }>(trx, RECENT_FRAMES, [serials, Math.max(...args.map(([, limit]) => limit))]);
    const bySerial = new Map<string, RecentFrame[]>();
    for (const { serial, ...frame } of found) bySerial.set(serial, [...(bySerial.get(serial) ?? []), frame]);
    return args.map(([serial, limit]) => (bySerial.get(serial) ?? []).slice(0, limit));
  },
};
