// Ingest throughput through HTTP: a real snsr server (SQLite, then PostgreSQL) in one process, the
// simulator as load generator in another, each run measured for acknowledgement latency, server RSS
// and CPU per uplink, of the snsr process and (PostgreSQL) of the database's backends serving it,
// read from /proc. The floor, in the same run and process: a bare Fastify server (no plugin, no
// hook, no schema) answering the same bytes as snsr answers a new uplink; each figure is also given
// as a ratio to it.
//
// Both processes run compiled JavaScript, as `npm start` does (tsx's loader thread alone adds some
// 30 MB to a process): the bench compiles the sources it needs into node_modules/.cache first.
import { execFileSync, fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import Fastify from 'fastify';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { WAL_LIMIT_BYTES } from '../src/storage/sqlite/connect.js';
import { createContext } from '../src/context.js';
import { limitHeapGrowth } from '../src/cli/heap-growth.js';
import { buildServer } from '../src/http/server.js';
import { catalogCsv, generatedModules } from '../src/simulator/fleet.js';
import type { Summary } from '../src/simulator/simulation.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { backendCpuMs, cpuSpent } from './lib/proc-cpu.js';

// From bench/ as TypeScript, or from <build>/bench/ once compiled.
const ROOT = process.env.SNSR_BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
// One build per checkout: worktrees may share node_modules (a symlink), and their benches must not
// compile over each other's.
const BUILD = join(ROOT, 'node_modules', '.cache', `snsr-bench-${createHash('sha1').update(ROOT).digest('hex').slice(0, 8)}`);
const TOKEN = 'bench-network-token';
const MODULES = Number(process.env.BENCH_MODULES ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const UPLINK_PATH = '/network/sigfox/uplink';
/** What snsr answers for a new uplink's callback, byte for byte: the floor answers this. */
const ANSWER = '{"uplink":"new","frame":"message","device":"F0000001","type":"keepalive:voltagetemp"}';

interface ServerReport {
  rssPeakMb: number;
  cpuMs: number;
  /** Share of the time the server's event loop was busy: below ~0.9, something else limited the run. */
  busy: number;
  rawMessages: number;
  /** SQLite: the WAL file's largest size during the run (MB); 0 on PostgreSQL. */
  walPeakMb: number;
}

type Message = { type: 'ready'; port: number; floorPort: number } | ({ type: 'report' } & ServerReport);
/** What the orchestrator tells the server: start measuring (and profiling, under this name), report, stop. */
type Command = { type: 'reset'; profile?: string } | { type: 'report' } | { type: 'stop' };

// ---------------------------------------------------------------- server process

async function serve(): Promise<void> {
  const config = loadConfig();
  // As `snsr serve` runs.
  limitHeapGrowth(config.heapGrowthPercent);
  const context = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)), backgroundCheckpoints: true });
  await context.catalog.import(catalogCsv(generatedModules(MODULES)));
  const app = await buildServer(context);
  await app.listen({ port: 0, host: '127.0.0.1' });
  // The floor: this machine's HTTP cost for the same request and answer, with nothing of snsr.
  const bare = Fastify();
  bare.post(UPLINK_PATH, (_request, reply) => reply.type('application/json; charset=utf-8').send(ANSWER));
  await bare.listen({ port: 0, host: '127.0.0.1' });
  let rssPeak = 0;
  let walPeak = 0;
  let cpu = process.cpuUsage();
  let loop = performance.eventLoopUtilization();
  setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    walPeak = Math.max(walPeak, context.storage.walBytes());
  }, 50).unref();
  // BENCH_CPU_PROF=<dir>: a CPU profile of each measured run (warm-up and other runs left out).
  const profileDir = process.env.BENCH_CPU_PROF;
  const inspector = profileDir ? new Session() : undefined;
  inspector?.connect();
  let profiling: string | undefined;
  process.on('message', async (message: Command) => {
    if (message.type === 'reset') {
      if (inspector && message.profile) {
        await inspector.post('Profiler.enable');
        await inspector.post('Profiler.start');
        profiling = message.profile;
      }
      rssPeak = process.memoryUsage.rss();
      walPeak = context.storage.walBytes();
      cpu = process.cpuUsage();
      loop = performance.eventLoopUtilization();
    } else if (message.type === 'report') {
      const used = process.cpuUsage(cpu);
      if (inspector && profiling && profileDir) {
        const { profile } = await inspector.post('Profiler.stop');
        mkdirSync(profileDir, { recursive: true });
        writeFileSync(join(profileDir, `${profiling}.cpuprofile`), JSON.stringify(profile));
        profiling = undefined;
      }
      const raw = await context.storage.db.selectFrom('raw_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      const busy = performance.eventLoopUtilization(loop).utilization;
      process.send?.({ type: 'report', rssPeakMb: rssPeak / 2 ** 20, cpuMs: (used.user + used.system) / 1000, busy, rawMessages: Number(raw.n), walPeakMb: walPeak / 2 ** 20 } satisfies Message);
    } else if (message.type === 'stop') {
      await app.close();
      await bare.close();
      await context.close();
      process.exit(0);
    }
  });
  const port = (server: typeof app.server) => {
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  };
  process.send?.({ type: 'ready', port: port(app.server), floorPort: port(bare.server) } satisfies Message);
}

// ---------------------------------------------------------------- load generator and orchestration

function next<T extends Message['type']>(child: ChildProcess, type: T): Promise<Extract<Message, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Message) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message as Extract<Message, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
}

/** Compiles the CLI and this bench (and everything they import) as tsc would for dist/. */
function compile(): void {
  rmSync(BUILD, { recursive: true, force: true });
  mkdirSync(BUILD, { recursive: true });
  const options = ['--outDir', BUILD, '--rootDir', ROOT, '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext'];
  options.push('--strict', '--esModuleInterop', '--skipLibCheck', '--resolveJsonModule', '--types', 'node', '--noEmitOnError', 'false');
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...options, join(ROOT, 'src/cli/main.ts'), join(ROOT, 'bench/ingest.ts')], { cwd: ROOT, stdio: 'pipe' });
  } catch (error) {
    // Type errors are `npm run typecheck`'s business; only missing output stops the bench.
    if (!existsSync(join(BUILD, 'bench/ingest.js'))) throw new Error(`compiling for the bench failed:\n${String((error as { stdout?: Buffer }).stdout ?? error)}`);
  }
  // The compiled code finds these relative to itself, as dist/ does.
  symlinkSync(join(ROOT, 'migrations'), join(BUILD, 'migrations'));
  symlinkSync(join(ROOT, 'web'), join(BUILD, 'web'));
}

function simulate(port: number, path: string, seconds: number, duplicates: boolean, seed: number): Promise<Summary> {
  const args = [join(BUILD, 'src/cli/main.js'), 'simulate', '--url', `http://127.0.0.1:${port}`, '--path', path, '--token', TOKEN];
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


interface Row {
  dialect: string;
  route: string;
  traffic: string;
  summary: Summary;
  server: ServerReport;
  /** CPU of the PostgreSQL backends serving the bench database during the run (ms), or null on SQLite. */
  databaseCpuMs: number | null;
  /** callbacks/s of the floor in the same run */
  floor?: number;
}

async function measure(
  server: ChildProcess,
  port: number,
  path: string,
  duplicates: boolean,
  seed: number,
  postgresUrl: string | null,
  profile: string,
): Promise<{ summary: Summary; server: ServerReport; databaseCpuMs: number | null }> {
  await simulate(port, path, WARMUP_SECONDS, duplicates, seed);
  const before = postgresUrl ? await backendCpuMs(postgresUrl) : null;
  server.send({ type: 'reset', profile } satisfies Command);
  const summary = await simulate(port, path, SECONDS, duplicates, seed + 1);
  server.send({ type: 'report' } satisfies Command);
  const report = await next(server, 'report');
  let databaseCpuMs: number | null = null;
  if (postgresUrl && before) databaseCpuMs = cpuSpent(before, await backendCpuMs(postgresUrl));
  return { summary, server: report, databaseCpuMs };
}

async function bench(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const db = await benchDatabase(dialect);
  if (!db) return [];
  const env = { ...process.env, SNSR_DATABASE_URL: db.url, SNSR_NETWORK_TOKEN: TOKEN, SNSR_SECRET: 'bench', LOG_LEVEL: 'warn', SNSR_BENCH_ROLE: 'server', SNSR_BENCH_ROOT: ROOT };
  // Without this process's loader (tsx): the server runs compiled, as `npm start` runs it.
  const server = fork(join(BUILD, 'bench/ingest.js'), [], { env, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { port, floorPort } = await next(server, 'ready');
    const rows: Row[] = [];
    const runs = [
      ['snsr', port, 'stations 1–3', true],
      ['snsr', port, 'one station', false],
      ['floor: bare Fastify', floorPort, 'stations 1–3', true],
    ] as const;
    let before = 0;
    for (const [i, [route, target, traffic, duplicates]] of runs.entries()) {
      const floor = route !== 'snsr';
      const profile = `${dialect}-${floor ? 'floor' : duplicates ? 'stations' : 'one-station'}`;
      const measured = await measure(server, target, UPLINK_PATH, duplicates, 100 * (i + 1), dialect === 'postgres' && !floor ? db.url : null, profile);
      const { summary, server: report } = measured;
      // Every uplink answered `new` was committed before the answer: it must be stored. (Uplinks whose
      // callbacks were all refused, e.g. by load shedding, were not acknowledged and need not be.)
      if (!floor && report.rawMessages - before < summary.outcomes.new) {
        throw new Error(`${dialect}: ${summary.outcomes.new} uplinks acknowledged as new but ${report.rawMessages - before} stored`);
      }
      before = report.rawMessages;
      rows.push({ dialect, route, traffic, summary, server: report, databaseCpuMs: measured.databaseCpuMs });
    }
    const floor = rows.at(-1)!.summary.callbacksPerSecond;
    for (const row of rows) row.floor = floor;
    return rows;
  } finally {
    server.send({ type: 'stop' } satisfies Command);
    await new Promise((resolve) => server.once('exit', resolve));
    await db.drop();
  }
}

const pad = (cells: string[], widths: number[]) => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');

export async function run(): Promise<void> {
  compile();
  console.log(
    `node ${process.version}; server and load generator in separate processes; ${MODULES} modules, ` +
      `${CONCURRENCY} callbacks in flight, ${SECONDS} s per run after ${WARMUP_SECONDS} s of warm-up`,
  );
  const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
  console.log(`machine load average at start: ${load()}`);
  // BENCH_DIALECTS=sqlite or postgres: one database only.
  const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');
  const rows: Row[] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) if (dialects.includes(dialect)) rows.push(...(await bench(dialect)));
  const widths = [9, 20, 13, 12, 8, 10, 9, 9, 11, 11, 11, 12];
  const head = ['database', 'route', 'traffic', 'callbacks/s', '× floor', 'uplinks/s', 'ack p50', 'ack p99', 'server RSS', 'snsr CPU', 'PG CPU', 'server busy'];
  console.log(pad(head, widths));
  const perUplink = (ms: number | null, s: Summary) => (ms === null ? '-' : `${(ms / Math.max(1, s.outcomes.new)).toFixed(3)} ms`);
  for (const { dialect, route, traffic, summary: s, server, databaseCpuMs, floor } of rows) {
    const isFloor = route !== 'snsr';
    console.log(
      pad(
        [
          dialect,
          route,
          traffic,
          String(s.callbacksPerSecond),
          (s.callbacksPerSecond / (floor ?? s.callbacksPerSecond)).toFixed(3),
          String(s.uplinksPerSecond),
          `${s.latencyMs.p50.toFixed(1)} ms`,
          `${s.latencyMs.p99.toFixed(1)} ms`,
          `${server.rssPeakMb.toFixed(0)} MB`,
          isFloor ? '-' : perUplink(server.cpuMs, s),
          perUplink(databaseCpuMs, s),
          `${(server.busy * 100).toFixed(0)} %`,
        ],
        widths,
      ),
    );
    if (s.callbacks.rejected + s.callbacks.failed > 0) console.log(`  !! ${s.callbacks.rejected} rejected, ${s.callbacks.failed} failed: ${JSON.stringify(s.rejections)}`);
  }
  console.log('callbacks/s = acknowledged callbacks per second (each acknowledged only after its transaction committed); × floor = that');
  console.log('over the floor\'s callbacks/s in the same run. uplinks/s = distinct uplinks (a callback per station that heard it);');
  console.log('every acknowledged uplink was found stored. snsr CPU, PG CPU = CPU time per new uplink of the snsr process and of the');
  console.log('PostgreSQL backends serving it (/proc). server busy = event-loop utilization: well below 100 %, something else was the limit.');
  for (const row of rows.filter((r) => r.route === 'snsr' && r.traffic === 'one station')) {
    const s = row.summary;
    const ratio = s.callbacksPerSecond / (row.floor ?? Infinity);
    const goal = row.dialect === 'sqlite' ? 0.4 : 0.15;
    const checks = [`${ratio.toFixed(3)} of the floor (target ≥ ${goal}: ${ratio >= goal ? 'met' : 'MISSED'})`];
    if (row.dialect === 'sqlite') {
      checks.push(`p99 ${s.latencyMs.p99.toFixed(1)} ms (target < 25 ms: ${s.latencyMs.p99 < 25 ? 'met' : 'MISSED'})`);
      checks.push(`RSS ${row.server.rssPeakMb.toFixed(0)} MB (target < 250 MB: ${row.server.rssPeakMb < 250 ? 'met' : 'MISSED'})`);
      checks.push(`WAL file at most ${row.server.walPeakMb.toFixed(0)} MB (the log starts over past ${WAL_LIMIT_BYTES / 2 ** 20} MB)`);
    } else {
      for (const [who, ms] of [['snsr', row.server.cpuMs], ['PostgreSQL', row.databaseCpuMs ?? NaN]] as const) {
        const per = ms / Math.max(1, s.outcomes.new);
        checks.push(`${who} CPU ${per.toFixed(3)} ms/uplink (target ≤ 0.3: ${per <= 0.3 ? 'met' : 'MISSED'})`);
      }
    }
    console.log(`${row.dialect}, every request a new uplink: ${checks.join('; ')}`);
  }
  console.log(`machine load average at end: ${load()} (other processes share the cores: compare figures within one run)`);
}

if (process.env.SNSR_BENCH_ROLE === 'server') await serve();
