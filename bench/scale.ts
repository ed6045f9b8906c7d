// Scale-out on one PostgreSQL: `snsr serve --processes N --no-worker` for N = 1, 2, 3 on one
// database, fed new uplinks over HTTP (keep-alive, BENCH_SCALE_CONNECTIONS at once) for
// BENCH_SECONDS after a warm-up. Per N: acknowledged uplinks/s, its ratio to the floor, and CPU
// milliseconds per uplink of the snsr processes and of the PostgreSQL backends serving them, both
// read from /proc. The floor, in the same run and from the same load generator: a bare Fastify
// server in its own process answering the same bytes, this machine's HTTP cost with nothing of snsr.
// Needs the build (`npm run build`): it runs dist/cli/main.js as `npx snsr` would.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openStorage } from '../src/storage/storage.js';
import { ModulesRepository } from '../src/storage/modules-repository.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';

const BIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 32);
const PROCESSES = (process.env.BENCH_SCALE_PROCESSES ?? '1,2,3').split(',').map(Number);
const MODULES = 1000;
const TOKEN = 'bench-network-token';
const PORT = 18_400;
const FLOOR_PORT = 18_401;
const ANSWER = '{"uplink":"new","frame":"message","device":"C0000000","type":"event:batterylow"}';
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

const serial = (i: number) => (0xc0000000 + i).toString(16).toUpperCase();

/** utime + stime of a process, in ticks; 0 once it has ended. */
function ticksOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The primary and every process it forked. */
function familyOf(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => {
      try {
        return Number(readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === pid;
      } catch {
        return false;
      }
    });
  return [pid, ...children];
}

async function backendPids(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** New uplinks, `CONNECTIONS` at a time, for `seconds`: how many were acknowledged with 200. */
async function feed(port: number, seconds: number, counter: { n: number }): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const deadline = performance.now() + seconds * 1000;
  let acknowledged = 0;
  const post = (body: string) =>
    new Promise<number>((resolve) => {
      const request = http.request({ host: '127.0.0.1', port, path: '/network/sigfox/uplink', method: 'POST', agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', () => resolve(0));
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const n = counter.n++;
        const k = Math.floor(n / MODULES);
        const body = JSON.stringify({ device: serial(n % MODULES), time: 1_790_000_000 + n, data: `${(k & 0x7f).toString(16).padStart(2, '0')}000046`, seqNumber: k % 4096, station: '1A2B', rssi: -120 });
        if ((await post(body)) === 200) acknowledged++;
      }
    }),
  );
  agent.destroy();
  return acknowledged;
}

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
  snsrMs: number | null;
  pgMs: number | null;
}

async function measureSnsr(processes: number): Promise<Row | undefined> {
  const db = await benchDatabase('postgres');
  if (!db) return undefined;
  const storage = await openStorage(db.url, { migrate: true });
  await new ModulesRepository(storage.db).importCatalog(Array.from({ length: MODULES }, (_, i) => ({ serial: serial(i), key: '1A2B3C4D', pac: '0123456789ABCDEF' })));
  await storage.close();
  const env = { ...process.env, SNSR_DATABASE_URL: db.url, SNSR_NETWORK_TOKEN: TOKEN, SNSR_SECRET: 'bench', PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' };
  const server = spawn(process.execPath, [BIN, 'serve', '--no-worker', '--processes', String(processes)], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await until(healthy(PORT));
    const counter = { n: 0 };
    await feed(PORT, WARMUP_SECONDS, counter);
    const family = familyOf(server.pid!);
    const backends = await backendPids(db.url);
    const snsrBefore = family.map(ticksOf);
    const pgBefore = backends.map(ticksOf);
    const started = performance.now();
    const acknowledged = await feed(PORT, SECONDS, counter);
    const seconds = (performance.now() - started) / 1000;
    const used = (pids: number[], before: number[]) => pids.reduce((sum, pid, i) => sum + Math.max(0, ticksOf(pid) - before[i]!), 0) * (1000 / CLOCK_TICKS);
    return {
      label: `snsr, ${processes} process${processes > 1 ? 'es' : ''}`,
      perSecond: acknowledged / seconds,
      snsrMs: used(family, snsrBefore) / acknowledged,
      pgMs: used(backends, pgBefore) / acknowledged,
    };
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
    const counter = { n: 0 };
    await feed(FLOOR_PORT, WARMUP_SECONDS, counter);
    const before = ticksOf(floor.pid!);
    const started = performance.now();
    const acknowledged = await feed(FLOOR_PORT, SECONDS, counter);
    const seconds = (performance.now() - started) / 1000;
    return { label: 'floor: bare Fastify', perSecond: acknowledged / seconds, snsrMs: ((ticksOf(floor.pid!) - before) * (1000 / CLOCK_TICKS)) / acknowledged, pgMs: null };
  } finally {
    floor.kill('SIGTERM');
  }
}

export async function run(): Promise<void> {
  if (!existsSync(BIN)) throw new Error('bench scale runs the built CLI: npm run build first');
  console.log(`node ${process.version}; ${CONNECTIONS} connections, every request a new uplink of one of ${MODULES} modules; ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up`);
  const floor = await measureFloor();
  const rows: Row[] = [];
  for (const processes of PROCESSES) {
    const row = await measureSnsr(processes);
    if (row) rows.push(row);
  }
  rows.push(floor);
  console.log(`${'server'.padEnd(22)}${'uplinks/s'.padStart(10)}${'× floor'.padStart(9)}${'snsr CPU/up'.padStart(13)}${'PG CPU/up'.padStart(11)}`);
  for (const row of rows) {
    const ms = (value: number | null) => (value === null ? '-' : `${value.toFixed(2)} ms`).padStart(13);
    console.log(`${row.label.padEnd(22)}${row.perSecond.toFixed(0).padStart(10)}${(row.perSecond / floor.perSecond).toFixed(3).padStart(9)}${ms(row.snsrMs)}${(row.pgMs === null ? '-' : `${row.pgMs.toFixed(2)} ms`).padStart(11)}`);
  }
  const first = rows[0];
  const last = rows.at(-2);
  if (first && last && first !== last) {
    console.log(`throughput ${last.label} / ${first.label}: ${(last.perSecond / first.perSecond).toFixed(2)}×; CPU per uplink (snsr + PG): ${((first.snsrMs ?? 0) + (first.pgMs ?? 0)).toFixed(2)} → ${((last.snsrMs ?? 0) + (last.pgMs ?? 0)).toFixed(2)} ms`);
  }
  console.log('CPU/up = CPU milliseconds per acknowledged uplink, from /proc (utime + stime): every snsr process, and the PostgreSQL backends of the bench database.');
}
