// Ingest throughput through HTTP: a real snsr server (SQLite, then PostgreSQL) in one process, the
// simulator as load generator in another, each run measured for acknowledgement latency, server RSS
// and server CPU. The same server also answers a route that only authenticates and validates the
// same body (204): the yardstick of what HTTP alone costs, measured in the same run.
//
// Both processes run compiled JavaScript, as `npm start` does (tsx's loader thread alone adds some
// 30 MB to a process): the bench compiles the sources it needs into node_modules/.cache first.
import { execFileSync, fork, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { UplinkBody, networkAuth } from '../src/http/routes/network/uplink.js';
import { catalogCsv, generatedModules } from '../src/simulator/fleet.js';
import type { Summary } from '../src/simulator/simulation.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';

// From bench/ as TypeScript, or from <build>/bench/ once compiled.
const ROOT = process.env.SNSR_BENCH_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = join(ROOT, 'node_modules', '.cache', 'snsr-bench');
const TOKEN = 'bench-network-token';
const MODULES = Number(process.env.BENCH_MODULES ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const VALIDATE_PATH = '/bench/validate-only';

interface ServerReport {
  rssPeakMb: number;
  cpuMs: number;
  /** Share of the time the server's event loop was busy: below ~0.9, something else limited the run. */
  busy: number;
  rawMessages: number;
}

type Message = { type: 'ready'; port: number } | ({ type: 'report' } & ServerReport);

// ---------------------------------------------------------------- server process

async function serve(): Promise<void> {
  const config = loadConfig();
  const context = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)) });
  await context.catalog.import(catalogCsv(generatedModules(MODULES)));
  const app = await buildServer(context);
  // The yardstick: same auth hook, same body schema, nothing else.
  await app.register(async (scope) => {
    scope.addHook('onRequest', networkAuth(config.networkToken));
    scope.post(VALIDATE_PATH, { schema: { hide: true, body: UplinkBody }, handler: async (_request, reply) => reply.code(204).send() });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  let rssPeak = 0;
  let cpu = process.cpuUsage();
  let loop = performance.eventLoopUtilization();
  setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 50).unref();
  process.on('message', async (message: string) => {
    if (message === 'reset') {
      rssPeak = process.memoryUsage.rss();
      cpu = process.cpuUsage();
      loop = performance.eventLoopUtilization();
    } else if (message === 'report') {
      const used = process.cpuUsage(cpu);
      const raw = await context.storage.db.selectFrom('raw_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      const busy = performance.eventLoopUtilization(loop).utilization;
      process.send?.({ type: 'report', rssPeakMb: rssPeak / 2 ** 20, cpuMs: (used.user + used.system) / 1000, busy, rawMessages: Number(raw.n) } satisfies Message);
    } else if (message === 'stop') {
      await app.close();
      await context.close();
      process.exit(0);
    }
  });
  const address = app.server.address();
  process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 } satisfies Message);
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
}

async function measure(server: ChildProcess, port: number, path: string, duplicates: boolean, seed: number): Promise<{ summary: Summary; server: ServerReport }> {
  await simulate(port, path, WARMUP_SECONDS, duplicates, seed);
  server.send('reset');
  const summary = await simulate(port, path, SECONDS, duplicates, seed + 1);
  server.send('report');
  return { summary, server: await next(server, 'report') };
}

async function bench(dialect: 'sqlite' | 'postgres'): Promise<Row[]> {
  const db = await benchDatabase(dialect);
  if (!db) return [];
  const env = { ...process.env, SNSR_DATABASE_URL: db.url, SNSR_NETWORK_TOKEN: TOKEN, SNSR_SECRET: 'bench', LOG_LEVEL: 'warn', SNSR_BENCH_ROLE: 'server', SNSR_BENCH_ROOT: ROOT };
  const server = fork(join(BUILD, 'bench/ingest.js'), [], { env, execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const { port } = await next(server, 'ready');
    const rows: Row[] = [];
    const runs = [
      ['/network/sigfox/uplink', 'stations 1–3', true],
      ['/network/sigfox/uplink', 'one station', false],
      [`${VALIDATE_PATH} (204)`, 'stations 1–3', true],
    ] as const;
    let before = 0;
    for (const [i, [route, traffic, duplicates]] of runs.entries()) {
      const { summary, server: report } = await measure(server, port, route.split(' ')[0], duplicates, 100 * (i + 1));
      if (route.startsWith('/network') && report.rawMessages - before < summary.uplinks) {
        throw new Error(`${dialect}: uplinks acknowledged but not stored (${report.rawMessages - before} stored)`);
      }
      before = report.rawMessages;
      rows.push({ dialect, route, traffic, summary, server: report });
    }
    return rows;
  } finally {
    server.send('stop');
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
  const rows = [...(await bench('sqlite')), ...(await bench('postgres'))];
  const widths = [9, 28, 13, 12, 10, 9, 9, 11, 13, 12];
  console.log(pad(['database', 'route', 'traffic', 'callbacks/s', 'uplinks/s', 'ack p50', 'ack p99', 'server RSS', 'CPU/callback', 'server busy'], widths));
  for (const { dialect, route, traffic, summary: s, server } of rows) {
    console.log(
      pad(
        [
          dialect,
          route,
          traffic,
          String(s.callbacksPerSecond),
          String(s.uplinksPerSecond),
          `${s.latencyMs.p50.toFixed(1)} ms`,
          `${s.latencyMs.p99.toFixed(1)} ms`,
          `${server.rssPeakMb.toFixed(0)} MB`,
          `${((server.cpuMs * 1000) / Math.max(1, s.callbacks.accepted)).toFixed(0)} µs`,
          `${(server.busy * 100).toFixed(0)} %`,
        ],
        widths,
      ),
    );
    if (s.callbacks.rejected + s.callbacks.failed > 0) console.log(`  !! ${s.callbacks.rejected} rejected, ${s.callbacks.failed} failed: ${JSON.stringify(s.rejections)}`);
  }
  console.log('callbacks/s = acknowledged callbacks per second (each acknowledged only after its transaction committed);');
  console.log('uplinks/s = distinct uplinks (a callback per station that heard it); every acknowledged uplink was found stored.');
  console.log('server busy = event-loop utilization of the server: well below 100 %, the load generator or the machine was the limit.');
}

if (process.env.SNSR_BENCH_ROLE === 'server') await serve();
