// A quiet PostgreSQL server: new uplinks one at a time, through the real app in this process
// (Fastify's inject, no sockets of its own), on a pool of one connection so that one session serves
// them all. Per round of BENCH_QUIET_UPLINKS uplinks: latency and CPU per uplink of this process and
// of the PostgreSQL backend. Then, from pg_prepared_statements, how each hot statement was planned:
// a quiet server's rounds carry one uplink, and a statement PostgreSQL plans anew on every run pays
// for it on every uplink.
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { cpuMsOf } from './lib/proc-cpu.js';
import { benchSerial, uplinkBody } from './lib/uplink-load.js';

const MODULES = 200;
const UPLINKS = Number(process.env.BENCH_QUIET_UPLINKS ?? 1000);
const ROUNDS = 3;
const TOKEN = 'bench-network-token';

export async function run(): Promise<void> {
  const database = await benchDatabase('postgres');
  if (!database) return;
  const env = { SNSR_DATABASE_URL: database.url, SNSR_SECRET: 'bench', SNSR_NETWORK_TOKEN: TOKEN, SNSR_DATABASE_POOL_SIZE: '1', SNSR_MAX_EVENT_LOOP_DELAY_MS: '0', LOG_LEVEL: 'silent' };
  const context = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
  const server = await buildServer(context);
  try {
    await context.repositories.modules.importCatalog(Array.from({ length: MODULES }, (_, i) => ({ serial: benchSerial(i), key: '1A2B3C4D', pac: '0123456789ABCDEF' })));
    const { pid } = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(context.storage.db)).rows[0]!;
    let n = 0;
    const uplink = async () => {
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const answer = await server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers, payload: uplinkBody(n++, MODULES) });
      if (answer.statusCode !== 200) throw new Error(`uplink answered ${answer.statusCode}: ${answer.body}`);
    };
    console.log(`node ${process.version}; ${MODULES} modules, new uplinks one at a time, ${ROUNDS} rounds of ${UPLINKS} after ${UPLINKS / 2} of warm-up`);
    for (let i = 0; i < UPLINKS / 2; i++) await uplink();
    console.log(`${'round'.padEnd(8)}${'latency'.padStart(10)}${'snsr CPU'.padStart(11)}${'PG CPU'.padStart(11)}   (per uplink)`);
    for (let round = 1; round <= ROUNDS; round++) {
      const [pg, cpu, started] = [cpuMsOf(pid), process.cpuUsage(), performance.now()];
      for (let i = 0; i < UPLINKS; i++) await uplink();
      const used = process.cpuUsage(cpu);
      const per = (ms: number) => `${(ms / UPLINKS).toFixed(3)} ms`;
      console.log(`${String(round).padEnd(8)}${per(performance.now() - started).padStart(10)}${per((used.user + used.system) / 1000).padStart(11)}${per(cpuMsOf(pid) - pg).padStart(11)}`);
    }
    const plans = await sql<{ generic: number; custom: number; statement: string }>`
      SELECT generic_plans AS generic, custom_plans AS custom, statement FROM pg_prepared_statements ORDER BY custom_plans DESC`.execute(context.storage.db);
    console.log('hot statements: runs on the plan made once (generic), runs planned anew with their values (custom)');
    for (const row of plans.rows) console.log(`${String(row.generic).padStart(8)}${String(row.custom).padStart(8)}   ${row.statement.replace(/\s+/g, ' ').slice(0, 90)}…`);
  } finally {
    await server.close();
    await context.close();
    await database.drop();
  }
}
