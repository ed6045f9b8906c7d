// Data lifecycle costs, on SQLite and PostgreSQL, with the server in this process and uplinks from a
// forked closed-loop generator: export throughput of `messages.csv` (rows/s) with this process's RSS
// sampled before, during and after; pruning rate (rows/s, in the batches and rests `snsr serve` uses on each database) and ingest p99 in
// 1-second rounds while pruning against the same rounds just before, in the same run; on PostgreSQL
// also a month dropped whole (its rows, the time it took, ingest p99 meanwhile). Old data is built
// directly in SQL: BENCH_LIFECYCLE_ROWS messages and as many raw messages (each with a station
// report) of one module, received three months ago. Load shedding is off (as in the tests): on a busy
// machine it would answer 503 to the export and to uplinks, which the figures would then leave out.
import { cpus, loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import type { Context } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { startRetentionPruner } from '../src/lifecycle/retention-pruner.js';
import { timePartitions } from '../src/storage/postgres/partition-drops.js';
import { createPartitionsAhead, monthStart } from '../src/storage/postgres/time-partitions.js';
import { RetentionRepository } from '../src/storage/retention-repository.js';
import { NO_SHEDDING } from '../test/helpers/cli.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { fmt, forkLoadGenerator, percentile } from './lib/closed-loop.js';
import type { LoadResult } from './lib/closed-loop.js';
import { atMost, checked } from './lib/target-figures.js';

const ROWS = Number(process.env.BENCH_LIFECYCLE_ROWS ?? 100_000);
const CONNECTIONS = 8;
const ROUND_MS = 1000;
const BASELINE_ROUNDS = 5;
const silent = pino({ level: 'silent' });
const MB = 1024 * 1024;

/** `ROWS` raw messages (one station report each) and messages of BEEF, in the month starting at `month`. */
async function seed(context: Context, month: number): Promise<void> {
  const db = context.storage.db;
  const postgres = context.storage.capabilities.dialect === 'postgres';
  const device = await db.selectFrom('devices').select('id').where('serial', '=', 'BEEF').executeTakeFirstOrThrow();
  const prefix = postgres ? sql`` : sql`WITH RECURSIVE seq(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM seq WHERE k + 1 < ${sql.lit(ROWS)}) `;
  const source = postgres ? sql`generate_series(0::bigint, ${sql.lit(ROWS - 1)}) AS seq(k)` : sql`seq`;
  // Spread over the month's first 25 days.
  const at = sql`${sql.lit(month)} + seq.k * ${sql.lit(Math.floor((25 * 86_400_000) / ROWS))}`;
  await sql`${prefix}INSERT INTO raw_messages (module_serial, seq_number, time_s, data, snr, received_at)
    SELECT 'BEEF', seq.k % 4096, (${at}) / 1000, '020300189167', 12.5, ${at} FROM ${source}`.execute(db);
  await sql`INSERT INTO rinfos (raw_id, tap, rssi, snr) SELECT id, '1A2B', -120.5, 12.5 FROM raw_messages WHERE module_serial = 'BEEF'`.execute(db);
  await sql`${prefix}INSERT INTO messages (module_serial, device_id, when_ms, time_s, type, station, lvl, frame, frame_type, code, entry_id, stamp, cpt, retry, custom, contrib, ctxt)
    SELECT 'BEEF', ${device.id}, ${at}, (${at}) / 1000, 'keepalive:voltagetemp', '1A2B', -120.5, '020300189167', 'srv_frm_keepalive',
      'keepalive_voltage_temp', 0, 2, 5, 0, '{"interval_h":24,"voltage_mv":3300,"temperature_c":21.5}', '{"network":"ON"}', '{}' FROM ${source}`.execute(db);
  await sql`ANALYZE`.execute(db);
}

/** Streams the module's CSV export, sampling RSS every 50 ms; rows and the peak RSS. */
async function exportCsv(base: string, auth: string): Promise<{ rows: number; seconds: number; peakMb: number }> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const start = performance.now();
  const response = await fetch(`${base}/iot/developers/modules/BEEF/messages.csv`, { headers: { authorization: auth } });
  if (response.status !== 200) throw new Error(`export answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  let rows = -1; // the header line
  for await (const chunk of response.body!) for (const byte of chunk as Uint8Array) if (byte === 10) rows++;
  clearInterval(sampler);
  return { rows, seconds: (performance.now() - start) / 1000, peakMb: peak / MB };
}

interface Figures {
  rate: number;
  p99: number;
  errors: number;
}
const summarize = (rounds: LoadResult[]): Figures => {
  const latencies = rounds.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const seconds = rounds.reduce((sum, r) => sum + r.seconds, 0);
  return { rate: latencies.length / seconds, p99: percentile(latencies, 0.99), errors: rounds.reduce((sum, r) => sum + r.errors, 0) };
};

async function benchDialect(dialect: 'sqlite' | 'postgres', generator: ReturnType<typeof forkLoadGenerator>): Promise<void> {
  const target = await benchDatabase(dialect);
  if (!target) return;
  const context = await createContext(loadConfig({ SNSR_DATABASE_URL: target.url, SNSR_SECRET: 'bench-secret', SNSR_NETWORK_TOKEN: 'bench-network', LOG_LEVEL: 'silent', ...NO_SHEDDING }), { log: silent });
  const server = await buildServer(context);
  try {
    await context.catalog.import('SERIAL;KEY;PAC\nC0FE;1A2B3C4D;0123456789ABCDEF\nBEEF;0000BEEF;0123456789ABCDEF\n');
    const { account } = await context.accounts.create('bench@example.com', 'Secret123');
    await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: 'BEEF', key: '0000BEEF' }]);
    await server.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.server.address() as AddressInfo).port;
    const old = monthStart(Date.now(), -3);
    if (dialect === 'postgres') await createPartitionsAhead(context.storage.db, old, 0);
    let seeded = performance.now();
    await seed(context, old);
    console.log(`${dialect}: built ${fmt(ROWS)} messages and ${fmt(ROWS)} raw messages (with station reports) in ${fmt((performance.now() - seeded) / 1000, 1)} s`);

    const rss = () => process.memoryUsage().rss / MB;
    const before = rss();
    const exported = await exportCsv(`http://127.0.0.1:${port}`, `Basic ${Buffer.from('bench@example.com:Secret123').toString('base64')}`);
    console.log(`${dialect}: export messages.csv ${fmt(exported.rows)} rows in ${fmt(exported.seconds, 2)} s = ${fmt(exported.rows / exported.seconds)} rows/s; RSS before ${fmt(before)} MB, peak during ${fmt(exported.peakMb)} MB, after ${fmt(rss())} MB`);

    let seq = 0;
    const round = async () => {
      const result = await generator.ask({ port, method: 'POST', path: '/network/sigfox/uplink', headers: { authorization: 'Bearer bench-network' }, durationMs: ROUND_MS, connections: CONNECTIONS, seqStart: seq });
      seq += result.requests + result.errors + 1;
      return result;
    };
    /** Ingest rounds one after another until `work` settles; the work's result and seconds, and the rounds. */
    const during = async <T>(work: () => Promise<T>) => {
      const start = performance.now();
      let seconds: number | undefined;
      const running = work().finally(() => (seconds = (performance.now() - start) / 1000));
      running.catch(() => {});
      const rounds: LoadResult[] = [];
      do rounds.push(await round());
      while (seconds === undefined);
      return { result: await running, seconds, rounds };
    };
    const repository = new RetentionRepository(context.storage.db);
    const defaults = { messagesDays: 30, rawDays: 30, alertsDays: 0 };
    await round(); // warm-up
    const idle: LoadResult[] = [];
    for (let i = 0; i < BASELINE_ROUNDS; i++) idle.push(await round());
    const quiet = summarize(idle);
    const rowPruning = await during(() => startRetentionPruner(repository, defaults, silent, { dialect }).runOnce());
    const pruneSeconds = rowPruning.seconds;
    const pruned = rowPruning.result.messages + rowPruning.result.raw;
    const busy = summarize(rowPruning.rounds);
    console.log(`${dialect}: row-batch pruning ${fmt(pruned)} rows (messages and raw, station reports with them) in ${fmt(pruneSeconds, 2)} s = ${fmt(pruned / pruneSeconds)} rows/s`);
    console.log(
      `${dialect}: ingest not pruning ${fmt(quiet.rate)} uplinks/s p99 ${fmt(quiet.p99, 1)} ms (${idle.length} rounds); while pruning ${fmt(busy.rate)} uplinks/s p99 ${fmt(busy.p99, 1)} ms ` +
        `(${rowPruning.rounds.length} rounds); p99 ×${checked(atMost(busy.p99 / quiet.p99, 1.5, 2))}; errors ${quiet.errors + busy.errors}`,
    );
    if (dialect === 'postgres') {
      seeded = performance.now();
      await seed(context, old);
      const seedSeconds = (performance.now() - seeded) / 1000;
      const dropping = await during(() => startRetentionPruner(repository, defaults, silent, { dialect, partitions: timePartitions(context.storage.db) }).runOnce());
      const dropSeconds = dropping.seconds;
      const dropped = dropping.result.messages + dropping.result.raw;
      const meanwhile = summarize(dropping.rounds);
      console.log(
        `${dialect}: partition drops: ${dropping.result.partitions} month partitions, ${fmt(dropped)} rows in ${fmt(dropSeconds, 2)} s = ${fmt(dropped / dropSeconds)} rows/s ` +
          `(the same rows took ${fmt(seedSeconds, 1)} s to write); ingest meanwhile p99 ${fmt(meanwhile.p99, 1)} ms over ${dropping.rounds.length} round(s)`,
      );
    }
  } finally {
    await server.close();
    await context.close();
    await target.drop();
  }
}

export async function run(): Promise<void> {
  const generator = forkLoadGenerator();
  try {
    console.log(`node ${process.version}, ${cpus().length} cores; server in this process, uplinks from a second one over ${CONNECTIONS} keep-alive connections in ${ROUND_MS / 1000} s rounds`);
    console.log(`machine load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${fmt(ROWS)} old rows per table (BENCH_LIFECYCLE_ROWS)`);
    await benchDialect('sqlite', generator);
    await benchDialect('postgres', generator);
    console.log(`machine load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    generator.close();
  }
}
