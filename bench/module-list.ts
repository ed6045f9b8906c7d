// What one page of the module list costs with 10,000 registered modules: `GET
// /iot/developers/modules/list.json` per sort, search and filter, through the real app (inject, no
// socket), beside `/healthz` on the same server (the floor), on SQLite and PostgreSQL. The
// Modules page's first screen is one such page; the landing page is one `overview.json` (with a
// day of hourly uplinks from every module, 240,000 raw messages, for its uplinks-per-hour chart).
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import type { Kysely } from 'kysely';
import type { Database } from '../src/storage/schema.js';
import { fleetModule, seedFleet } from '../test/helpers/fleet.js';

const FLEET = 10_000;
const SAMPLES = 40;

const QUERIES: [string, string][] = [
  ['floor: /healthz', '/healthz'],
  ['last seen (default), page 1', '/iot/developers/modules/list.json'],
  ['last seen, page 100', '/iot/developers/modules/list.json?offset=4950'],
  ['open alerts', '/iot/developers/modules/list.json?sort=alerts'],
  ['battery', '/iot/developers/modules/list.json?sort=battery'],
  ['name', '/iot/developers/modules/list.json?sort=name'],
  ['search "pump 99"', '/iot/developers/modules/list.json?q=pump%2099'],
  ['tag cold, low battery', '/iot/developers/modules/list.json?tag=cold&state=low-battery'],
  ['overview (landing page)', '/iot/developers/overview.json'],
];

/** One uplink an hour over the last day from every module, straight into raw_messages. */
async function seedDay(db: Kysely<Database>, now: number): Promise<void> {
  const nowS = Math.floor(now / 1000);
  const rows = Array.from({ length: FLEET * 24 }, (_, k) => {
    const time = nowS - (k % 24) * 3600 - 60;
    return { module_serial: fleetModule(Math.floor(k / 24) + 1, now).serial, seq_number: k % 24, time_s: time, data: '00030018916A', received_at: time * 1000 };
  });
  for (let start = 0; start < rows.length; start += 2000) await db.insertInto('raw_messages').values(rows.slice(start, start + 2000)).execute();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function benchDialect(dialect: 'sqlite' | 'postgres'): Promise<void> {
  const target = await benchDatabase(dialect);
  if (!target) return;
  const context = await createContext(loadConfig({ SNSR_DATABASE_URL: target.url, SNSR_SECRET: 'bench-secret', LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }) });
  try {
    const { account, token } = await context.accounts.create('bench@example.com', 'Secret123');
    const now = Date.now();
    await seedFleet(context.storage.db, account.id, FLEET, now);
    await seedDay(context.storage.db, now);
    // As autovacuum would soon after a bulk registration: the planner needs the tables' statistics.
    if (dialect === 'postgres') await sql`ANALYZE`.execute(context.storage.db);
    const server = await buildServer(context);
    await server.ready();
    const headers = { authorization: `Basic ${token}` };
    console.log(`\n${dialect}, ${FLEET.toLocaleString('en-US')} modules, median of ${SAMPLES} (load average ${loadavg()[0]!.toFixed(1)})`);
    let floor = 0;
    for (const [name, url] of QUERIES) {
      for (let i = 0; i < 3; i++) await server.inject({ url, headers }); // warm-up
      const times: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const start = performance.now();
        const response = await server.inject({ url, headers });
        times.push(performance.now() - start);
        if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
      }
      const ms = median(times);
      if (floor === 0) floor = ms;
      console.log(`${name.padEnd(30)}${ms.toFixed(2).padStart(9)} ms${(ms / floor).toFixed(1).padStart(8)}× floor`);
    }
    await server.close();
  } finally {
    await context.close();
    await target.drop();
  }
}

export async function run(): Promise<void> {
  await benchDialect('sqlite');
  await benchDialect('postgres');
}
