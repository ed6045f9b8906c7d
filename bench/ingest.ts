// Ingest throughput through HTTP: a real snsr server (SQLite, then PostgreSQL) in one process, the
// simulator as load generator in another, each route measured for acknowledgement latency, server
// RSS and CPU per uplink, of the snsr process and (PostgreSQL) of the database's backends serving
// it, read from /proc. The floor, in the same process: a bare Fastify server answering the same
// bytes as snsr answers a new uplink (bench/lib/ingest-server.ts). snsr's routes and the floor run
// in interleaved rounds, each figure the median of its rounds and each ratio taken against the
// floor of the same round: this machine's speed drifts by a third within minutes, and routes
// measured one after the other compared that drift as much as the routes.
//
// Both processes run compiled JavaScript, as `npm start` does (tsx's loader thread alone adds some
// 30 MB to a process): the bench compiles the sources it needs into node_modules/.cache first.
import { execFileSync, fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WAL_LIMIT_BYTES } from '../src/storage/sqlite/connect.js';
import type { Summary } from '../src/simulator/simulation.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { backendCpuMs, cpuSpent } from './lib/proc-cpu.js';
import { MODULES, UPLINK_PATH } from './lib/ingest-server.js';
import type { Command, Message, ServerReport } from './lib/ingest-server.js';
import { printRows } from './lib/ingest-report.js';
import type { Round, Row } from './lib/ingest-report.js';

// From bench/ as TypeScript, or from <build>/bench/ once compiled.
const ROOT = process.env.SNSR_BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
// One build per checkout: worktrees may share node_modules (a symlink), and their benches must not
// compile over each other's.
const BUILD = join(ROOT, 'node_modules', '.cache', `snsr-bench-${createHash('sha1').update(ROOT).digest('hex').slice(0, 8)}`);
const TOKEN = 'bench-network-token';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const PIPELINE_UPLINKS = Number(process.env.BENCH_PIPELINE_UPLINKS ?? 10_000);

function next<T extends Message['type']>(child: ChildProcess, type: T): Promise<Extract<Message, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`bench server exited with ${code}`));
    const onMessage = (message: Message) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<Message, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Compiles the CLI and the bench's server (and everything they import) as tsc would for dist/. */
function compile(): void {
  rmSync(BUILD, { recursive: true, force: true });
  mkdirSync(BUILD, { recursive: true });
  const options = ['--outDir', BUILD, '--rootDir', ROOT, '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext'];
  options.push('--strict', '--esModuleInterop', '--skipLibCheck', '--resolveJsonModule', '--types', 'node', '--noEmitOnError', 'false');
  const server = 'bench/lib/ingest-server';
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...options, join(ROOT, 'src/cli/main.ts'), join(ROOT, `${server}.ts`)], { cwd: ROOT, stdio: 'pipe' });
  } catch (error) {
    // Type errors are `npm run typecheck`'s business; only missing output stops the bench.
    if (!existsSync(join(BUILD, `${server}.js`))) throw new Error(`compiling for the bench failed:\n${String((error as { stdout?: Buffer }).stdout ?? error)}`);
  }
  // The compiled code finds these relative to itself, as dist/ does.
  symlinkSync(join(ROOT, 'migrations'), join(BUILD, 'migrations'));
  symlinkSync(join(ROOT, 'web'), join(BUILD, 'web'));
}

function simulate(port: number, seconds: number, duplicates: boolean, seed: number): Promise<Summary> {
  const args = [join(BUILD, 'src/cli/main.js'), 'simulate', '--url', `http://127.0.0.1:${port}`, '--path', UPLINK_PATH, '--token', TOKEN];
  args.push('--count', String(MODULES), '--rate', '1000000', '--concurrency', String(CONCURRENCY), '--duration', String(seconds));
  args.push('--seed', String(seed), '--quiet', '--json', ...(duplicates ? [] : ['--no-duplicates']));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as Summary);
      } catch {
        reject(new Error(`simulator exited with ${code}: ${out}`));
      }
    });
  });
}

/** One route's load: snsr with every station's copy (duplicates), snsr with one station, or the floor. */
interface Load {
  route: 'snsr' | 'floor: bare Fastify';
  traffic: 'stations 1–3' | 'one station';
  duplicates: boolean;
  profile: string;
}

async function bench(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const db = await benchDatabase(dialect);
  if (!db) return [];
  const env = { ...process.env, SNSR_DATABASE_URL: db.url, SNSR_NETWORK_TOKEN: TOKEN, SNSR_SECRET: 'bench', LOG_LEVEL: 'warn', SNSR_BENCH_ROLE: 'server', SNSR_BENCH_ROOT: ROOT };
  // Without this process's loader (tsx): the server runs compiled, as `npm start` runs it.
  const server = fork(join(BUILD, 'bench/lib/ingest-server.js'), [], { env, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { port, floorPort } = await next(server, 'ready');
    const loads: Load[] = [
      { route: 'snsr', traffic: 'stations 1–3', duplicates: true, profile: `${dialect}-stations` },
      { route: 'snsr', traffic: 'one station', duplicates: false, profile: `${dialect}-one-station` },
      { route: 'floor: bare Fastify', traffic: 'stations 1–3', duplicates: true, profile: `${dialect}-floor` },
    ];
    const target = (load: Load) => (load.route === 'snsr' ? port : floorPort);
    // Every simulator run gets its own seed: each run's uplinks are new to the database.
    let seed = 100;
    for (const load of loads) await simulate(target(load), WARMUP_SECONDS, load.duplicates, seed++);
    const rounds: Round[][] = loads.map(() => []);
    let stored = (await report(server)).rawMessages;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, load] of loads.entries()) {
        const snsr = load.route === 'snsr';
        // BENCH_CPU_PROF: each load's first measured round only.
        const measured = await measureRound(server, target(load), seed++, load.duplicates, dialect === 'postgres' && snsr ? db.url : null, round === 0 ? load.profile : undefined);
        // Every uplink answered `new` was committed before the answer: it must be stored. (Uplinks whose
        // callbacks were all refused, e.g. by load shedding, were not acknowledged and need not be.)
        if (snsr && measured.server.rawMessages - stored < measured.summary.outcomes.new) {
          throw new Error(`${dialect}: ${measured.summary.outcomes.new} uplinks acknowledged as new but ${measured.server.rawMessages - stored} stored`);
        }
        stored = measured.server.rawMessages;
        rounds[i]!.push(measured);
      }
    }
    const floors = rounds[loads.findIndex((load) => load.route !== 'snsr')]!;
    // The same process's pipeline without HTTP, for the one-station row: what ingesting costs alone.
    server.send({ type: 'pipeline', uplinks: PIPELINE_UPLINKS, concurrency: CONCURRENCY, seed: seed++ } satisfies Command);
    const pipeline = await next(server, 'pipeline');
    return loads.map(({ route, traffic }, i) => ({ dialect, route, traffic, rounds: rounds[i]!, floors, ...(traffic === 'one station' && route === 'snsr' && { pipeline }) }));
  } finally {
    server.send({ type: 'stop' } satisfies Command);
    await new Promise((resolve) => server.once('exit', resolve));
    await db.drop();
  }
}

/** The server's figures since it was last told to start counting (and the raw messages it holds). */
function report(server: ChildProcess): Promise<ServerReport> {
  server.send({ type: 'report' } satisfies Command);
  return next(server, 'report');
}

/** One round of one load: the server told to start counting, the simulator run, the server's report. */
async function measureRound(server: ChildProcess, port: number, seed: number, duplicates: boolean, postgresUrl: string | null, profile?: string): Promise<Round> {
  const before = postgresUrl ? await backendCpuMs(postgresUrl) : null;
  server.send({ type: 'reset', profile } satisfies Command);
  const summary = await simulate(port, SECONDS, duplicates, seed);
  const measured = await report(server);
  const databaseCpuMs = postgresUrl && before ? cpuSpent(before, await backendCpuMs(postgresUrl)) : null;
  return { summary, server: measured, databaseCpuMs };
}

export async function run(): Promise<void> {
  compile();
  console.log(
    `node ${process.version}; server and load generator in separate processes; ${MODULES} modules, ${CONCURRENCY} callbacks in flight; ` +
      `${ROUNDS} interleaved rounds of ${SECONDS} s per route after ${WARMUP_SECONDS} s of warm-up each; each figure the median of its rounds`,
  );
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`machine load average at start: ${load()}`);
  // BENCH_DIALECTS=sqlite or postgres: one database only.
  const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
  const rows: Row[] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) if (dialects.includes(dialect)) rows.push(...(await bench(dialect)));
  printRows(rows, WAL_LIMIT_BYTES);
  console.log(`machine load average at end: ${load()} (other processes share the cores: compare figures within one run)`);
}
