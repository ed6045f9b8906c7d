// Scale-out on one PostgreSQL: `snsr serve --processes N --no-worker` for N = 1, 2, 3 on one
// database, fed new uplinks over HTTP. Two loads per N, each for BENCH_SECONDS after a warm-up:
// - as fast as it answers (BENCH_SCALE_CONNECTIONS callbacks in flight): acknowledged uplinks/s and
//   its ratio to the floor, a bare Fastify server in its own process answering the same bytes from
//   the same load generator (this machine's HTTP cost with nothing of snsr);
// - a fixed BENCH_SCALE_RATE uplinks/s (0: skipped), below what one process takes: what N
//   processes cost per uplink while the machine keeps up, so that oversubscribed cores (3 processes,
//   PostgreSQL and the load generator on 2 cores) do not hide how the cost moves with N.
// Per load: CPU milliseconds per uplink of the snsr processes and of the PostgreSQL backends serving
// them, read from /proc. Needs the build (`npm run build`): it runs dist/bin/snsr.js as `npx snsr` would.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openStorage } from '../src/storage/storage.js';
import { ModulesRepository } from '../src/storage/modules-repository.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { percentile } from './lib/closed-loop.js';
import { backendCpuMs, cpuMsOf, cpuMsOfEach, cpuSpent, familyOf } from './lib/proc-cpu.js';
import { benchSerial, closedLoop, openLoop } from './lib/uplink-load.js';
import type { UplinkTarget } from './lib/uplink-load.js';

const BIN = fileURLToPath(new URL('../dist/bin/snsr.js', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 32);
const RATE = Number(process.env.BENCH_SCALE_RATE ?? 1000);
const PROCESSES = (process.env.BENCH_SCALE_PROCESSES ?? '1,2,3').split(',').map(Number);
const MODULES = 1000;
const TOKEN = 'bench-network-token';
const PORT = 18_400;
const FLOOR_PORT = 18_401;
const ANSWER = '{"uplink":"new","frame":"message","device":"C0000000","type":"event:batterylow"}';

function startFloor(): ChildProcess {
  const code = `const f=(await import('fastify')).default();f.post('/network/sigfox/uplink',async()=>${JSON.stringify(ANSWER)});await f.listen({port:${FLOOR_PORT},host:'127.0.0.1'});process.send('ready');`;
  return spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 100));
}

const healthy = (port: number) => () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);

interface Row {
  label: string;
  perSecond: number;
  /** Acknowledged uplinks per committed transaction of the bench database. */
  perCommit?: number;
  snsrMs: number | null;
  pgMs: number | null;
}
interface PacedRow extends Row {
  p50: number;
  p99: number;
  lost: number;
}

/**
 * Transactions committed in the database so far. PostgreSQL publishes a backend's counts at most
 * once a second: read after a pause, the count covers every commit made before it.
 */
async function commits(url: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** CPU per acknowledged uplink of the snsr processes and their backends while `load` runs, and uplinks per commit. */
async function costOf<T extends { acknowledged: number }>(pids: number[], url: string, load: () => Promise<T>) {
  const committed = await commits(url);
  const snsrBefore = cpuMsOfEach(pids);
  const pgBefore = await backendCpuMs(url);
  const started = performance.now();
  const result = await load();
  const seconds = (performance.now() - started) / 1000;
  const snsrMs = cpuSpent(snsrBefore, cpuMsOfEach(pids)) / result.acknowledged;
  const pgMs = cpuSpent(pgBefore, await backendCpuMs(url)) / result.acknowledged;
  return { ...result, seconds, snsrMs, pgMs, perCommit: result.acknowledged / ((await commits(url)) - committed) };
}

async function measureSnsr(processes: number): Promise<{ saturated: Row; paced?: PacedRow } | undefined> {
  const db = await benchDatabase('postgres');
  if (!db) return undefined;
  const storage = await openStorage(db.url, { migrate: true });
  await new ModulesRepository(storage.db, storage.capabilities).importCatalog(Array.from({ length: MODULES }, (_, i) => ({ serial: benchSerial(i), key: '1A2B3C4D', pac: '0123456789ABCDEF' })));
  await storage.close();
  const env = { ...process.env, SNSR_DATABASE_URL: db.url, SNSR_NETWORK_TOKEN: TOKEN, SNSR_SECRET: 'bench', PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' };
  const server = spawn(process.execPath, [BIN, 'serve', '--no-worker', '--processes', String(processes)], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const label = `snsr, ${processes} process${processes > 1 ? 'es' : ''}`;
  try {
    await until(healthy(PORT));
    const target: UplinkTarget = { port: PORT, token: TOKEN, modules: MODULES, counter: { n: 0 } };
    await closedLoop(target, CONNECTIONS, WARMUP_SECONDS);
    const family = familyOf(server.pid!);
    const full = await costOf(family, db.url, async () => ({ acknowledged: await closedLoop(target, CONNECTIONS, SECONDS) }));
    const saturated = { label, perSecond: full.acknowledged / full.seconds, perCommit: full.perCommit, snsrMs: full.snsrMs, pgMs: full.pgMs };
    if (RATE <= 0) return { saturated };
    const fixed = await costOf(family, db.url, () => openLoop(target, RATE, SECONDS));
    const paced = { label, perSecond: fixed.acknowledged / fixed.seconds, perCommit: fixed.perCommit, snsrMs: fixed.snsrMs, pgMs: fixed.pgMs, p50: percentile(fixed.latenciesMs, 0.5), p99: percentile(fixed.latenciesMs, 0.99), lost: fixed.sent - fixed.acknowledged };
    return { saturated, paced };
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
    await db.drop();
  }
}

async function measureFloor(): Promise<Row> {
  const floor = startFloor();
  try {
    await new Promise((resolve) => floor.once('message', resolve));
    const target: UplinkTarget = { port: FLOOR_PORT, token: TOKEN, modules: MODULES, counter: { n: 0 } };
    await closedLoop(target, CONNECTIONS, WARMUP_SECONDS);
    const before = cpuMsOf(floor.pid!);
    const started = performance.now();
    const acknowledged = await closedLoop(target, CONNECTIONS, SECONDS);
    const seconds = (performance.now() - started) / 1000;
    return { label: 'floor: bare Fastify', perSecond: acknowledged / seconds, snsrMs: (cpuMsOf(floor.pid!) - before) / acknowledged, pgMs: null };
  } finally {
    floor.kill('SIGTERM');
  }
}

const ms = (value: number | null, width: number) => (value === null ? '-' : `${value.toFixed(2)} ms`).padStart(width);
const perCommit = (row: Row) => (row.perCommit === undefined ? '-' : row.perCommit.toFixed(1)).padStart(12);
const sum = (row: Row) => (row.snsrMs ?? 0) + (row.pgMs ?? 0);

export async function run(): Promise<void> {
  if (!existsSync(BIN)) throw new Error('bench scale runs the built CLI: npm run build first');
  console.log(`node ${process.version}; every request a new uplink of one of ${MODULES} modules; ${SECONDS} s per load after ${WARMUP_SECONDS} s of warm-up`);
  const floor = await measureFloor();
  const saturated: Row[] = [];
  const paced: PacedRow[] = [];
  for (const processes of PROCESSES) {
    const measured = await measureSnsr(processes);
    if (measured) saturated.push(measured.saturated);
    if (measured?.paced) paced.push(measured.paced);
  }
  console.log(`as fast as answered, ${CONNECTIONS} callbacks in flight:`);
  console.log(`${'server'.padEnd(22)}${'uplinks/s'.padStart(10)}${'× floor'.padStart(9)}${'per commit'.padStart(12)}${'snsr CPU/up'.padStart(13)}${'PG CPU/up'.padStart(11)}`);
  for (const row of [...saturated, floor]) {
    console.log(`${row.label.padEnd(22)}${row.perSecond.toFixed(0).padStart(10)}${(row.perSecond / floor.perSecond).toFixed(3).padStart(9)}${perCommit(row)}${ms(row.snsrMs, 13)}${ms(row.pgMs, 11)}`);
  }
  const [first, last] = [saturated[0], saturated.at(-1)];
  if (first && last && first !== last) {
    console.log(`throughput ${last.label} / ${first.label}: ${(last.perSecond / first.perSecond).toFixed(2)}×; CPU per uplink (snsr + PG): ${sum(first).toFixed(2)} → ${sum(last).toFixed(2)} ms`);
  }
  if (paced.length > 0) {
    console.log(`at a fixed ${RATE} uplinks/s:`);
    console.log(`${'server'.padEnd(22)}${'uplinks/s'.padStart(10)}${'ack p50'.padStart(10)}${'ack p99'.padStart(10)}${'not acked'.padStart(11)}${'per commit'.padStart(12)}${'snsr CPU/up'.padStart(13)}${'PG CPU/up'.padStart(11)}`);
    for (const row of paced) {
      console.log(`${row.label.padEnd(22)}${row.perSecond.toFixed(0).padStart(10)}${ms(row.p50, 10)}${ms(row.p99, 10)}${String(row.lost).padStart(11)}${perCommit(row)}${ms(row.snsrMs, 13)}${ms(row.pgMs, 11)}`);
    }
    const [one, most] = [paced[0]!, paced.at(-1)!];
    if (one !== most) console.log(`CPU per uplink at ${RATE}/s (snsr + PG): ${one.label} ${sum(one).toFixed(2)} ms → ${most.label} ${sum(most).toFixed(2)} ms (${(sum(most) / sum(one)).toFixed(2)}×)`);
  }
  console.log('per commit = acknowledged uplinks per transaction committed in the bench database (pg_stat_database): how many uplinks');
  console.log('a group commit carried. CPU/up = CPU milliseconds per acknowledged uplink, from /proc (utime + stime): every snsr');
  console.log('process, and the PostgreSQL backends of the bench database.');
}
