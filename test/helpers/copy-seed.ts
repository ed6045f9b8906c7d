import { expect } from 'vitest';
import { pino } from 'pino';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';
import type { Database } from '../../src/storage/schema.js';
import type { TestApp } from './app.js';
import { basic, CATALOG, PASSWORD } from './app.js';
import { NO_SHEDDING } from './cli.js';
import { HOST, ORIGIN } from './session.js';
import { frames } from './uplinks.js';

/**
 * The real app on the database at `url`, without SNSR_SECRET: the device-token secret is the one
 * generated into the database, as on an operator's machine that never set it.
 */
export async function appOn(url: string): Promise<TestApp> {
  const config = loadConfig({ SNSR_NETWORK_TOKEN: 'network-token', SNSR_CALLBACK_ALLOW_PRIVATE: 'true', ...NO_SHEDDING, SNSR_DATABASE_URL: url });
  const context = await createContext(config, { log: pino({ level: 'silent' }) });
  const server = await buildServer(context);
  await server.ready();
  return {
    context,
    server,
    close: async () => {
      await server.close();
      await context.close();
    },
  };
}

/** What a client holds before the move: each must still work against the target after it. */
export interface Credentials {
  auth: string;
  deviceToken: string;
  apiKeyToken: string;
  cookie: string;
}

export const call = async (app: TestApp, method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) => {
  const response = await app.server.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
  return { status: response.statusCode, body: response.body, json: () => response.json() };
};

const ok = async (answer: Promise<{ status: number; body: string }>) => {
  const { status, body } = await answer;
  expect(status, body).toBe(200);
  return JSON.parse(body || 'null');
};

export async function uplink(app: TestApp, device: string, time: number, data: string, seq: number, station = '1A2B', rssi = -120.5) {
  await ok(call(app, 'POST', '/network/sigfox/uplink', { authorization: 'Bearer network-token' }, { device, time, data, seqNumber: seq, station, rssi, snr: 10.25, avgSnr: 11.5, lat: 48.86, lng: 2.35 }));
}

/**
 * Real data in every table, made the way users make it (the API, uplinks from the network) where
 * the API can, straight into the tables where it takes a mail server or a second process.
 */
export async function seedEverything(app: TestApp): Promise<Credentials> {
  const db = app.context.storage.db;
  await app.context.repositories.modules.importCatalog(CATALOG);
  await app.context.accounts.create('alice@example.com', PASSWORD);
  await app.context.accounts.create('bob@example.com', PASSWORD);
  const auth = basic('alice@example.com', PASSWORD);
  await ok(call(app, 'POST', '/iot/developers/modules.json', { authorization: auth }, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]));
  const farm = await ok(call(app, 'POST', '/iot/developers/apps.json', { authorization: auth }, { name: 'farm', description: 'the farm', callbackurl: 'http://127.0.0.1:9/hook' }));
  await ok(call(app, 'POST', `/iot/developers/apps/${farm.id}/modules/attach.json`, { authorization: auth }, { serials: ['C0FE'] }));
  await ok(call(app, 'POST', '/iot/developers/apps.json', { authorization: basic('bob@example.com', PASSWORD) }, { name: 'empty' }));
  // Uplinks: one heard by two stations, a child's, events that set state, one without a sequence number.
  const t = 1_763_000_000;
  await uplink(app, 'C0FE', t, frames.keepAlive(1), 1);
  await uplink(app, 'C0FE', t, frames.keepAlive(1), 1, '2B3C', -99.25);
  await uplink(app, 'C0FE', t + 60, frames.batteryLow(2), 2);
  await uplink(app, 'C0FE', t + 120, frames.tempHigh(3, 1), 3);
  await uplink(app, '0ACE', t + 180, frames.keepAlive(1), 7);
  await uplink(app, 'C0FE', 1_600_000_000, frames.batteryOk(4), 4); // years ago: its own month partition on PostgreSQL
  await ok(call(app, 'POST', '/iot/developers/labels.json?sn=C0FE', { authorization: auth }, { name: 'Boiler room', tags: ['cellar', 'wet'], notes: 'behind the door' }));
  await ok(call(app, 'POST', '/iot/developers/modules/retention.json?sn=C0FE&messages_days=30', { authorization: auth }));
  await ok(call(app, 'POST', `/iot/developers/apps/retention.json?idApp=${farm.id}&raw_days=90`, { authorization: auth }));
  const key = await ok(call(app, 'POST', '/iot/developers/keys.json', { authorization: auth }, { name: 'ci', scope: 'read' }));
  const signIn = await app.server.inject({ method: 'POST', url: '/iot/developers/session.json', headers: { host: HOST, origin: ORIGIN, 'sec-fetch-site': 'same-origin' }, payload: { email: 'alice@example.com', password: PASSWORD } });
  expect(signIn.statusCode, signIn.body).toBe(200);
  const cookie = `snsr_session=${signIn.cookies.find((c) => c.name === 'snsr_session')!.value}`;
  const crc = await call(app, 'GET', '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D', {});
  expect(crc.status).toBe(200);
  await seedRest(db);
  return { auth, deviceToken: crc.body, apiKeyToken: `Basic ${key.token}`, cookie };
}

/** Rows the API makes only with a mail server, a watched device or a second process. */
async function seedRest(db: Kysely<Database>): Promise<void> {
  const alice = await db.selectFrom('accounts').select('id').where('email', '=', 'alice@example.com').executeTakeFirstOrThrow();
  const device = await db.selectFrom('devices').select('id').where('serial', '=', 'C0FE').executeTakeFirstOrThrow();
  const message = await db.selectFrom('messages').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  const now = Date.now();
  await db.insertInto('alerts').values([
    { account_id: alice.id, module_serial: 'C0FE', device_id: device.id, kind: 'battery', message: 'battery low', raised_at: now - 5000, message_id: message.id, ended_at: now, end_message: 'battery ok', acked_at: now },
    { account_id: alice.id, module_serial: 'C0FE', device_id: device.id, kind: 'temperature_high', message: 'too hot', raised_at: now, message_id: null, ended_at: null, end_message: null, acked_at: null },
  ]).execute();
  const open = await db.selectFrom('alerts').select('id').where('ended_at', 'is', null).executeTakeFirstOrThrow();
  const farm = await db.selectFrom('apps').select('id').where('name', '=', 'farm').executeTakeFirstOrThrow();
  await db.insertInto('deliveries').values({ uuid: 'alert-delivery-1', app_id: farm.id, message_id: null, alert_id: open.id, status: 'pending', next_attempt_at: now, created_at: now, updated_at: now }).execute();
  await db.insertInto('alert_settings').values({ account_id: alice.id, email: 1 }).execute();
  await db.insertInto('signups').values({ email: 'carol@example.com', password_hash: 'scrypt$x', firstname: 'Carol', lastname: null, token_hash: 'ab'.repeat(32), created_at: now, expires_at: now + 3_600_000, activated_at: null }).execute();
  await db.insertInto('password_resets').values({ token_hash: 'cd'.repeat(32), account_id: alice.id, created_at: now, expires_at: now + 1_800_000, used_at: null }).execute();
  await db.insertInto('rate_limits').values({ key: 'auth:address:127.0.0.1', count: 3, reset_at: now + 900_000 }).execute();
  await db.insertInto('leases').values({ name: 'watchdog', owner: 'host:1', until_ms: now + 30_000 }).execute();
  await db.insertInto('delivery_slots').values({ app_id: 1, slot: 0, holder: 'host:1', until_ms: now + 30_000 }).execute();
  await db.insertInto('module_retention').values({ module_serial: '0ACE', messages_days: null, raw_days: 7 }).execute();
  // The newest audit row goes, as pruning would: ids handed out stay handed out after the move.
  const newest = await db.selectFrom('audit_log').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
  await db.deleteFrom('audit_log').where('id', '=', newest.id).execute();
}

/** Every row of every table, ordered, in one representation (pg's and SQLite's numbers agree once parsed). */
export async function dumpTables(db: Kysely<Database>, tables: string[]): Promise<Record<string, unknown[]>> {
  const dump: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    const normal = rows.map((row) => Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
    dump[table] = normal.map((row) => JSON.stringify(row)).sort();
  }
  return dump;
}
