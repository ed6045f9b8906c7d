// What each developer credential costs per request: `GET /iot/developers/apps.json` over real HTTP
// with the account token, a named API key, a dashboard session cookie and email:password (scrypt,
// then the verified-pair cache), beside a constant route on the same server (the HTTP floor), on
// SQLite and PostgreSQL. The server runs in this process; the load comes from a forked one.
import type { OutgoingHttpHeaders } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { fmt, forkLoadGenerator, median, percentile } from './lib/closed-loop.js';
import type { LoadJob, LoadResult } from './lib/closed-loop.js';

const CONNECTIONS = 8;
const ROUNDS = 5;
const ROUND_MS = 1500;
const WARMUP_MS = 1000;

type Job = Pick<LoadJob, 'port' | 'path' | 'headers' | 'durationMs'>;
const row = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd([9, 34][i]!) : c.padStart(10))).join('');

async function benchDialect(dialect: 'sqlite' | 'postgres', ask: (job: Job) => Promise<LoadResult>): Promise<void> {
  const target = await benchDatabase(dialect);
  if (!target) return;
  const context = await createContext(loadConfig({ SNSR_DATABASE_URL: target.url, SNSR_SECRET: 'bench-secret', LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }) });
  try {
    const email = 'bench@example.com';
    const { account, token } = await context.accounts.create(email, 'Secret123');
    for (let i = 0; i < 5; i++) await context.apps.save(account.id, { name: `app ${i}` });
    const key = await context.apiKeys.create(account, { name: 'bench', scope: 'read' });
    const session = await context.sessions.start(account, { address: null, userAgent: null });
    const server = await buildServer(context);
    server.get('/bench/constant.json', async () => []);
    await server.listen({ host: '127.0.0.1', port: 0 });
    const port = (server.server.address() as { port: number }).port;
    const apps = '/iot/developers/apps.json';
    const routes: [string, string, OutgoingHttpHeaders][] = [
      ['constant route (HTTP floor)', '/bench/constant.json', {}],
      ['apps.json, account token', apps, { authorization: `Basic ${token}` }],
      ['apps.json, API key (read)', apps, { authorization: `Basic ${key.token}` }],
      ['apps.json, session cookie', apps, { cookie: `snsr_session=${session.id}`, 'sec-fetch-site': 'same-origin' }],
      ['apps.json, email:password (cached)', apps, { authorization: `Basic ${Buffer.from(`${email}:Secret123`).toString('base64')}` }],
    ];
    const rounds: Record<string, { rate: number; p50: number; p99: number; errors: number }[]> = {};
    for (const [, path, headers] of routes) await ask({ port, path, headers, durationMs: WARMUP_MS });
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, path, headers] of routes) {
        const result = await ask({ port, path, headers, durationMs: ROUND_MS });
        const latencies = result.latenciesMs.sort((a, b) => a - b);
        (rounds[name] ??= []).push({ rate: result.requests / result.seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors: result.errors });
      }
    }
    const floor = median(rounds[routes[0]![0]]!.map((f) => f.rate));
    for (const [name] of routes) {
      const list = rounds[name]!;
      const rate = median(list.map((f) => f.rate));
      const errors = list.reduce((sum, f) => sum + f.errors, 0);
      console.log(row([dialect, name, fmt(rate), `${fmt((rate / floor) * 100)} %`, fmt(median(list.map((f) => f.p50)), 2), fmt(median(list.map((f) => f.p99)), 2), fmt(errors)]));
    }
    const writes = await context.storage.db.selectFrom('api_keys').select('last_used_at').executeTakeFirstOrThrow();
    console.log(`${dialect}: the key's last_used was written at most once a minute (now ${writes.last_used_at === null ? 'never' : new Date(writes.last_used_at).toISOString()})`);
    await server.close();
  } finally {
    await context.close();
    await target.drop();
  }
}

export async function run(): Promise<void> {
  const generator = forkLoadGenerator();
  const ask = (job: Job) => generator.ask({ ...job, connections: CONNECTIONS });
  try {
    console.log(`node ${process.version}, ${cpus().length} cores; server in this process, load from a second one over ${CONNECTIONS} keep-alive connections`);
    console.log(`each figure the median of ${ROUNDS} interleaved rounds × ${ROUND_MS / 1000} s; machine load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(row(['dialect', 'route and credential', 'req/s', 'of floor', 'p50 ms', 'p99 ms', 'errors']));
    await benchDialect('sqlite', ask);
    await benchDialect('postgres', ask);
    console.log(`machine load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    generator.close();
  }
}
