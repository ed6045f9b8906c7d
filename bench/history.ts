// `GET /iot/devices/msgs/history.json?amount=20` over real HTTP, for a random module of 1,000 per
// request, with 20,000 (20 per module) and then 10,000,000 stored messages (BENCH_HISTORY_LARGE), built directly in
// SQL, on SQLite and PostgreSQL. Beside it, in the same run: the floor, a bare Fastify server (no
// plugin, no hook, no schema) answering the very bytes of a 20-message history page, and on the snsr
// server a route answering a constant 20-message array through the same response schema. The servers
// run in this process; the load comes from a second process (this file, forked), so on two cores each
// side has one. Beside rates, CPU per answer: of this process and of the PostgreSQL backends (/proc).
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { ChildProcess } from 'node:child_process';
import { Agent, get } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { pino } from 'pino';
import { Type } from 'typebox';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import type { Context } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { MessageSchema } from '../src/http/presenters/messages.js';
import type { presentMessage } from '../src/wire/message.js';
import { messageBody, storedPageJson } from '../src/wire/message.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { backendCpuMs, cpuSpent } from './lib/proc-cpu.js';

const MODULES = 1000;
/** 20 messages per module: history answers the full amount=20 page at both sizes (with 10,000 it had 10). */
const SMALL = 20_000;
const LARGE = Number(process.env.BENCH_HISTORY_LARGE ?? 10_000_000);
const CONNECTIONS = 8;
const ROUNDS = 5;
const ROUND_MS = 1500;
const WARMUP_MS = 1000;
const T0 = Date.UTC(2024, 0, 1);
/** BENCH_CPU_PROF=<dir>: CPU profiles of this process while only the history route, then only the floor, is loaded, per dialect and size. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** BENCH_HISTORY_DIALECTS=sqlite (or postgres): only those dialects, for quicker runs. */
const DIALECTS = (process.env.BENCH_HISTORY_DIALECTS ?? 'sqlite,postgres').split(',');

// ---------------------------------------------------------------------------------------------
// Load generator (the forked process): keep-alive connections, each sending its next request as
// soon as the previous answer is read; latency per request; only 200s count.

interface Job {
  port: number;
  paths: readonly string[];
  tokens: string[];
  durationMs: number;
}
interface Result {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

function load(job: Job): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latenciesMs: number[] = [];
  let errors = 0;
  const start = performance.now();
  const deadline = start + job.durationMs;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const path = job.paths[Math.floor(Math.random() * job.paths.length)]!;
      const token = job.tokens[Math.floor(Math.random() * job.tokens.length)]!;
      const sent = performance.now();
      const request = get({ host: '127.0.0.1', port: job.port, path, agent, headers: { 'x-snsr-device-key': token } }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) latenciesMs.push(performance.now() - sent);
          else errors++;
          resolve();
        });
      });
      request.on('error', () => {
        errors++;
        resolve();
      });
    });
  const connection = async () => {
    while (performance.now() < deadline) await one();
  };
  return Promise.all(Array.from({ length: CONNECTIONS }, connection)).then(() => {
    agent.destroy();
    return { requests: latenciesMs.length, errors, seconds: (performance.now() - start) / 1000, latenciesMs };
  });
}

if (process.argv.includes('--history-load-generator')) {
  process.on('message', (job: Job) => {
    void load(job).then((result) => process.send!(result));
  });
}

// ---------------------------------------------------------------------------------------------
// The server side.

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
 * form in `body`, as ingestion writes it (a test holds this text equal to `messageBody`'s).
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

async function count(context: Context): Promise<number> {
  const row = await context.storage.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

interface Figure {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs of the server process per answered request */
  cpuUs: number;
  /** CPU µs of the PostgreSQL backends per answered request (0 on SQLite) */
  dbUs: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

function measureWith(child: ChildProcess) {
  const ask = (job: Job): Promise<Result> =>
    new Promise((resolve) => {
      child.once('message', (result: Result) => resolve(result));
      child.send(job);
    });
  /**
   * Interleaved rounds, so both routes see the same machine load; each figure is the median of the
   * rounds' figures, so one round disturbed by another process does not decide it.
   */
  return async (
    tokens: string[],
    routes: Record<string, { port: number; paths: readonly string[] }>,
    url: string | undefined,
    roundCount = ROUNDS,
  ): Promise<Record<string, Figure>> => {
    const rounds: Record<string, Figure[]> = {};
    for (const { port, paths } of Object.values(routes)) await ask({ port, paths, tokens, durationMs: WARMUP_MS });
    for (let round = 0; round < roundCount; round++) {
      for (const [name, { port, paths }] of Object.entries(routes)) {
        const db = url ? await backendCpuMs(url) : undefined;
        const cpu = process.cpuUsage();
        const result = await ask({ port, paths, tokens, durationMs: ROUND_MS });
        const used = process.cpuUsage(cpu);
        const dbMs = url && db ? cpuSpent(db, await backendCpuMs(url)) : 0;
        const latencies = result.latenciesMs.sort((a, b) => a - b);
        (rounds[name] ??= []).push({
          rate: result.requests / result.seconds,
          p50: percentile(latencies, 0.5),
          p99: percentile(latencies, 0.99),
          errors: result.errors,
          cpuUs: (used.user + used.system) / Math.max(1, result.requests),
          dbUs: (dbMs * 1000) / Math.max(1, result.requests),
        });
      }
    }
    const figures: Record<string, Figure> = {};
    for (const [name, list] of Object.entries(rounds)) {
      figures[name] = {
        rate: median(list.map((f) => f.rate)),
        p50: median(list.map((f) => f.p50)),
        p99: median(list.map((f) => f.p99)),
        errors: list.reduce((sum, f) => sum + f.errors, 0),
        cpuUs: median(list.map((f) => f.cpuUs)),
        dbUs: median(list.map((f) => f.dbUs)),
      };
    }
    return figures;
  };
}


const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const row = (cells: string[]): string => cells.map((c, i) => (i < 3 ? c.padEnd([9, 12, 30][i]!) : c.padStart(10))).join('');
const FLOOR = 'floor: bare Fastify, same bytes';
const HISTORY = 'history.json?amount=20';

async function benchDialect(dialect: 'sqlite' | 'postgres', measure: ReturnType<typeof measureWith>): Promise<string[]> {
  const database = await benchDatabase(dialect);
  if (!database) return [];
  const config = loadConfig({ SNSR_DATABASE_URL: database.url, SNSR_SECRET: 'bench-secret', LOG_LEVEL: 'silent' });
  const context = await createContext(config, { log: pino({ level: 'silent' }), backgroundCheckpoints: true });
  const summary: string[] = [];
  try {
    await context.repositories.modules.importCatalog(Array.from({ length: MODULES }, (_, i) => ({ serial: serial(i), key: key(i), pac: pac(i) })));
    await context.storage.db
      .insertInto('devices')
      .values(Array.from({ length: MODULES }, (_, i) => ({ module_serial: serial(i), idx: 1, serial: `${serial(i)}/1` })))
      .execute();
    const tokens = await Promise.all(Array.from({ length: MODULES }, (_, i) => context.devices.issueToken(serial(i), key(i))));

    let filled = Date.now();
    await fill(context, 0, SMALL / MODULES);
    const smallFill = (Date.now() - filled) / 1000;
    await checkBodies(context);

    const server = await buildServer(context);
    // The yardstick: 20 real messages, answered as a constant through the same response schema.
    const scope = await context.devices.byToken(tokens[0]!);
    // Taken again at each size (below), so that they answer what history answers then.
    let constant = JSON.parse(storedPageJson(await context.devices.messages(scope, {}, { amount: 20 }))) as ReturnType<typeof presentMessage>[];
    server.get('/bench/constant.json', { schema: { response: { 200: Type.Array(MessageSchema) } } }, async () => constant);
    await server.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.server.address() as { port: number }).port;
    // The floor: what this machine's HTTP stack costs for the same answer, with nothing of snsr.
    let page = storedPageJson(await context.devices.messages(scope, {}, { amount: 20 }));
    const bare = Fastify();
    bare.get('/floor.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(page));
    await bare.listen({ host: '127.0.0.1', port: 0 });
    const floorPort = (bare.server.address() as { port: number }).port;
    const routes = {
      [FLOOR]: { port: floorPort, paths: ['/floor.json'] },
      'constant 20 messages, schema': { port, paths: ['/bench/constant.json'] },
      [HISTORY]: { port, paths: ['/iot/devices/msgs/history.json?amount=20'] },
    };

    const figures: Record<number, Record<string, Figure>> = {};
    const postgresUrl = dialect === 'postgres' ? database.url : undefined;
    /**
     * The history route and then the floor, each loaded alone under the profiler: the floor's
     * profile shows what the HTTP stack costs per answer (the socket write above all), so that
     * the history profile's share of it can be told from snsr's own work.
     */
    const profile = async (size: number) => {
      if (!PROFILE_DIR) return;
      mkdirSync(PROFILE_DIR, { recursive: true });
      const session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      for (const [name, prefix] of [[HISTORY, 'history'], [FLOOR, 'floor']] as const) {
        await session.post('Profiler.start');
        const figure = (await measure(tokens, { [name]: routes[name]! }, postgresUrl, 3))[name]!;
        const { profile: taken } = await session.post('Profiler.stop');
        const file = join(PROFILE_DIR, `${prefix}-${dialect}-${size}.cpuprofile`);
        writeFileSync(file, JSON.stringify(taken));
        console.log(`${dialect}: CPU profile of ${name} alone (${fmt(figure.rate)}/s, ${fmt(figure.cpuUs)} µs CPU per answer) written to ${file}`);
      }
      session.disconnect();
    };
    for (const size of [SMALL, LARGE]) {
      if (size === LARGE) {
        filled = Date.now();
        await fill(context, SMALL / MODULES, LARGE / MODULES);
        page = storedPageJson(await context.devices.messages(scope, {}, { amount: 20 }));
        constant = JSON.parse(page) as ReturnType<typeof presentMessage>[];
        console.log(`${dialect}: filled ${fmt(await count(context))} messages in ${fmt(smallFill + (Date.now() - filled) / 1000, 1)} s`);
      }
      figures[size] = await measure(tokens, routes, postgresUrl);
      await profile(size);
      const floor = figures[size]![FLOOR]!.rate;
      for (const [name, f] of Object.entries(figures[size]!)) {
        const cpu = figures[size]![FLOOR]!.cpuUs / (f.cpuUs + f.dbUs);
        console.log(row([dialect, fmt(size), name, fmt(f.rate), fmt(f.rate / floor, 3), fmt(f.p50, 2), fmt(f.p99, 2), fmt(f.errors), fmt(f.cpuUs), fmt(f.dbUs), fmt(cpu, 3)]));
      }
    }
    await server.close();
    await bare.close();
    const history = (size: number) => figures[size]![HISTORY]!;
    const target = dialect === 'sqlite' ? 0.4 : 0.25;
    for (const size of [SMALL, LARGE]) {
      const ratio = history(size).rate / figures[size]![FLOOR]!.rate;
      summary.push(`${dialect}: history at ${fmt(size)} = ${fmt(ratio, 3)} of the floor (target ≥ ${target}: ${ratio >= target ? 'met' : 'MISSED'})`);
    }
    const growth = history(LARGE).p99 / history(SMALL).p99;
    summary.push(`${dialect}: history p99 at ${fmt(LARGE)} / at ${fmt(SMALL)} = ${fmt(growth, 2)}× (target ≤ 1.5×: ${growth <= 1.5 ? 'met' : 'MISSED'})`);
  } finally {
    await context.close();
    await database.drop();
  }
  return summary;
}

export async function run(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--history-load-generator'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    console.log(`node ${process.version}, ${cpus().length} cores; server in this process, load from a second one over ${CONNECTIONS} keep-alive connections`);
    console.log(`${MODULES} modules (each with one child), random module per request; each figure the median of ${ROUNDS} interleaved rounds × ${ROUND_MS / 1000} s`);
    console.log(`machine load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(row(['dialect', 'stored', 'route', 'req/s', '× floor', 'p50 ms', 'p99 ms', 'errors', 'CPU µs', 'DB µs', 'CPU ×']));
    const measure = measureWith(child);
    const summary: string[] = [];
    for (const dialect of ['sqlite', 'postgres'] as const) if (DIALECTS.includes(dialect)) summary.push(...(await benchDialect(dialect, measure)));
    console.log(summary.join('\n'));
    console.log(`machine load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other processes share the cores: compare figures within one run)`);
  } finally {
    child.kill();
  }
}
