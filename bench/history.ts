// `GET /iot/devices/msgs/history.json?amount=20` over real HTTP, for a random module of 1,000 per
// request, with 20,000 (20 per module) and 10,000,000 stored messages (BENCH_HISTORY_LARGE), built
// directly in SQL, on SQLite and PostgreSQL. Each size has its own database and server, and both
// are measured in the same interleaved rounds: filling millions of rows leaves this machine slower
// for minutes, and sizes measured one after the other compared that as much as the sizes. Beside
// them, in the same rounds: the floor, a bare Fastify server (no plugin, no hook, no schema)
// answering the very bytes of a 20-message history page, and on each snsr server a route answering
// a constant 20-message array through the same response schema. The servers run in this process;
// the load comes from a second one (bench/lib/history-load.ts), so on two cores each side has one.
// Beside rates, CPU per answer: of this process and of the PostgreSQL backends (/proc).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { cpus, loadavg } from 'node:os';
import { pino } from 'pino';
import { Type } from 'typebox';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import type { Context } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { MessageSchema } from '../src/http/presenters/messages.js';
import { storedPageJson } from '../src/wire/message.js';
import type { presentMessage } from '../src/wire/message.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import type { ScratchDatabase } from '../test/helpers/scratch-database.js';
import { MODULES, count, fill, populate } from './lib/history-fill.js';
import { fmt } from './lib/closed-loop.js';
import { CONNECTIONS, ROUND_MS, ROUNDS, loadGenerator } from './lib/history-load.js';
import { atLeast, atMost, checked } from './lib/target-figures.js';
import type { Figure, Measure, Route } from './lib/history-load.js';

/** 20 messages per module: history answers the full amount=20 page at both sizes (with 10,000 it had 10). */
const SMALL = 20_000;
const LARGE = Number(process.env.BENCH_HISTORY_LARGE ?? 10_000_000);
/** BENCH_CPU_PROF=<dir>: CPU profiles of this process while only the history route, then only the floor, is loaded, per dialect and size. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** BENCH_HISTORY_DIALECTS=sqlite (or postgres): only those dialects, for quicker runs. */
const DIALECTS = (process.env.BENCH_HISTORY_DIALECTS ?? 'sqlite,postgres').split(',');

const FLOOR = 'floor: bare Fastify, same bytes';
const CONSTANT = 'constant 20 messages, schema';
const HISTORY = 'history.json?amount=20';

const row = (cells: string[]): string => cells.map((c, i) => (i < 3 ? c.padEnd([9, 12, 30][i]!) : c.padStart(10))).join('');

/** One size's database and snsr server: its two routes to load, and what its history page answers. */
interface Served {
  size: number;
  routes: Record<string, Route>;
  page: string;
  tokens: string[];
  close: () => Promise<void>;
}

/** Listens on a free port of 127.0.0.1, and answers it. */
async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as { port: number }).port;
}

/**
 * The floor: a bare Fastify server (no plugin, hook or schema) answering `page`'s very bytes, what
 * this machine's HTTP stack costs for the same answer with nothing of snsr. One for both sizes
 * (their pages differ in digits only), so that both ratios share its rounds.
 */
async function floorServer(page: string): Promise<{ port: number; close: () => Promise<void> }> {
  const bare = Fastify();
  bare.get('/floor.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(page));
  return { port: await listen(bare), close: () => bare.close() };
}

/** A database of `size` messages and its snsr server; undefined when the dialect has no server here. */
async function serve(dialect: 'sqlite' | 'postgres', size: number): Promise<Served | undefined> {
  const database: ScratchDatabase | undefined = await benchDatabase(dialect);
  if (!database) return undefined;
  const config = loadConfig({ SNSR_DATABASE_URL: database.url, SNSR_SECRET: 'bench-secret', LOG_LEVEL: 'silent' });
  const context: Context = await createContext(config, { log: pino({ level: 'silent' }), backgroundCheckpoints: true });
  const servers: FastifyInstance[] = [];
  const close = async () => {
    for (const server of servers) await server.close();
    await context.close();
    await database.drop();
  };
  try {
    const started = Date.now();
    const tokens = await populate(context, Math.min(size, SMALL) / MODULES);
    if (size > SMALL) {
      await fill(context, SMALL / MODULES, size / MODULES);
      console.log(`${dialect}: filled ${fmt(await count(context))} messages in ${fmt((Date.now() - started) / 1000, 1)} s`);
    }
    // What history answers at this size: the constant route's 20 messages, and the floor's bytes.
    const page = storedPageJson(await context.devices.messages(await context.devices.byToken(tokens[0]!), {}, { amount: 20 }));
    const constant = JSON.parse(page) as ReturnType<typeof presentMessage>[];
    const server = await buildServer(context);
    servers.push(server);
    server.get('/bench/constant.json', { schema: { response: { 200: Type.Array(MessageSchema) } } }, async () => constant);
    const port = await listen(server);
    const url = dialect === 'postgres' ? database.url : undefined;
    const routes = {
      [CONSTANT]: { port, paths: ['/bench/constant.json'], tokens, url },
      [HISTORY]: { port, paths: ['/iot/devices/msgs/history.json?amount=20'], tokens, url },
    };
    return { size, routes, page, tokens, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Each route given (a label for its file, and the route), loaded alone under the profiler: the
 * floor's profile shows what the HTTP stack costs per answer (the socket write above all), so that
 * the history profile's share of it can be told from snsr's own work.
 */
async function profile(dialect: string, routes: [label: string, route: Route][], measure: Measure): Promise<void> {
  if (!PROFILE_DIR) return;
  mkdirSync(PROFILE_DIR, { recursive: true });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  for (const [label, route] of routes) {
    await session.post('Profiler.start');
    const figure = (await measure({ [label]: route }, 3))[label]!;
    const { profile: taken } = await session.post('Profiler.stop');
    const file = join(PROFILE_DIR, `${label}-${dialect}.cpuprofile`);
    writeFileSync(file, JSON.stringify(taken));
    console.log(`${dialect}: CPU profile of ${label} alone (${fmt(figure.rate)}/s, ${fmt(figure.cpuUs)} µs CPU per answer) written to ${file}`);
  }
  session.disconnect();
}

/** A route's name in the rounds: its size and what it is. */
const key = (size: number, name: string): string => `${size} ${name}`;

async function benchDialect(dialect: 'sqlite' | 'postgres', measure: Measure): Promise<string[]> {
  const sizes: Served[] = [];
  let floor: Awaited<ReturnType<typeof floorServer>> | undefined;
  try {
    for (const size of [SMALL, LARGE]) {
      const served = await serve(dialect, size);
      if (!served) return [];
      sizes.push(served);
    }
    floor = await floorServer(sizes[0]!.page);
    // Both sizes' routes and the floor in the same rounds: the same machine, the same moments.
    const routes: Record<string, Route> = { [FLOOR]: { port: floor.port, paths: ['/floor.json'], tokens: sizes[0]!.tokens } };
    for (const { size, routes: own } of sizes) for (const [name, route] of Object.entries(own)) routes[key(size, name)] = route;
    const all = await measure(routes);
    const base = all[FLOOR]!;
    const print = (stored: string, name: string, f: Figure) =>
      console.log(row([dialect, stored, name, fmt(f.rate), fmt(f.rate / base.rate, 3), fmt(f.p50, 2), fmt(f.p99, 2), fmt(f.errors), fmt(f.cpuUs), fmt(f.dbUs), fmt(base.cpuUs / (f.cpuUs + f.dbUs), 3)]));
    print('-', FLOOR, base);
    for (const { size, routes: own } of sizes) for (const name of Object.keys(own)) print(fmt(size), name, all[key(size, name)]!);
    await profile(dialect, [...sizes.map(({ size, routes: own }): [string, Route] => [`history-${size}`, own[HISTORY]!]), ['floor', routes[FLOOR]!]], measure);
    const history = (size: number): Figure => all[key(size, HISTORY)]!;
    const target = dialect === 'sqlite' ? 0.4 : 0.25;
    const summary = [SMALL, LARGE].map((size) => {
      const ratio = history(size).rate / base.rate;
      const { shown, verdict } = atLeast(ratio, target, 4);
      return `${dialect}: history at ${fmt(size)} = ${shown} of the floor (${verdict})`;
    });
    const growth = history(LARGE).p99 / history(SMALL).p99;
    summary.push(`${dialect}: history p99 at ${fmt(LARGE)} / at ${fmt(SMALL)}, in the same rounds = ${checked(atMost(growth, 1.5, 3, '×'))}`);
    return summary;
  } finally {
    await floor?.close();
    for (const served of sizes) await served.close();
  }
}

export async function run(): Promise<void> {
  const { measure, stop } = loadGenerator();
  try {
    console.log(`node ${process.version}, ${cpus().length} cores; server in this process, load from a second one over ${CONNECTIONS} keep-alive connections`);
    console.log(
      `${MODULES} modules (each with one child), random module per request; each size in its own database, both measured in the same ${ROUNDS} interleaved rounds × ${ROUND_MS / 1000} s per route; each figure the median of the rounds`,
    );
    console.log(`machine load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(row(['dialect', 'stored', 'route', 'req/s', '× floor', 'p50 ms', 'p99 ms', 'errors', 'CPU µs', 'DB µs', 'CPU ×']));
    const summary: string[] = [];
    for (const dialect of ['sqlite', 'postgres'] as const) if (DIALECTS.includes(dialect)) summary.push(...(await benchDialect(dialect, measure)));
    console.log(summary.join('\n'));
    console.log(`machine load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other processes share the cores: compare figures within one run)`);
  } finally {
    stop();
  }
}
