// What the limits cost the hot paths: Sigfox uplinks (`POST /network/sigfox/uplink`, every one
// new) and device history (`GET /iot/devices/msgs/history.json`), on two servers over one SQLite
// database in this process — one with every limit on (connection deadlines and cap, load shedding,
// request quotas counted but never reached, JSON depth checks), one with the per-request ones off
// (no shedding, no quotas) — in interleaved rounds from a forked load generator; ratio printed.
import { cpus, loadavg } from 'node:os';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import type { Limits } from '../src/config.js';
import { createContext } from '../src/context.js';
import type { Context } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';
import { benchUplink, fmt, forkLoadGenerator, median, percentile } from './lib/closed-loop.js';
import type { LoadJob } from './lib/closed-loop.js';
import { atMost, checked } from './lib/target-figures.js';

const CONNECTIONS = 8;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = 1500;
const WARMUP_MS = 1000;

type Job = Omit<LoadJob, 'connections'>;
const row = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd([12, 24][i]!) : c.padStart(10))).join('');

/** The same context with other limits: both servers share the database, caches and services. */
const withLimits = (context: Context, limits: Partial<Limits>): Context => ({ ...context, config: { ...context.config, limits: { ...context.config.limits, ...limits } } });

export async function run(): Promise<void> {
  const target = await benchDatabase('sqlite');
  if (!target) return;
  const generator = forkLoadGenerator();
  const ask = (job: Job) => generator.ask({ ...job, connections: CONNECTIONS });
  const context = await createContext(loadConfig({ SNSR_DATABASE_URL: target.url, SNSR_SECRET: 'bench-secret', SNSR_NETWORK_TOKEN: 'bench-network', LOG_LEVEL: 'silent' }), {
    log: pino({ level: 'silent' }),
  });
  try {
    await context.catalog.import('SERIAL;KEY;PAC\nC0FE;1A2B3C4D;0123456789ABCDEF\n');
    const { account } = await context.accounts.create('bench@example.com', 'Secret123');
    await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    const token = await context.devices.issueToken('C0FE', '1A2B3C4D');
    // Quotas on, counted on every request, set high enough never to refuse the benchmark's load.
    const limited = await buildServer(withLimits(context, { developerRequestsPerMinute: 100_000_000, deviceRequestsPerMinute: 100_000_000 }));
    const unlimited = await buildServer(withLimits(context, { developerRequestsPerMinute: 0, deviceRequestsPerMinute: 0, maxEventLoopDelayMs: 0 }));
    const ports: Record<string, number> = {};
    for (const [name, server] of [['limits on', limited], ['limits off', unlimited]] as const) {
      await server.listen({ host: '127.0.0.1', port: 0 });
      ports[name] = (server.server.address() as { port: number }).port;
    }
    // Some history to read.
    let seq = 0;
    for (; seq < 200; seq++) await context.ingest.receive(JSON.parse(benchUplink(seq)) as never);
    const paths: [string, Omit<Job, 'port' | 'durationMs' | 'seqStart'>][] = [
      ['uplink (new each time)', { method: 'POST', path: '/network/sigfox/uplink', headers: { authorization: 'Bearer bench-network' } }],
      ['history.json?amount=20', { method: 'GET', path: '/iot/devices/msgs/history.json?amount=20', headers: { 'x-snsr-device-key': token } }],
    ];
    console.log(`node ${process.version}, ${cpus().length} cores, SQLite; servers in this process, load from a second one over ${CONNECTIONS} keep-alive connections`);
    console.log(`each figure the median of ${ROUNDS} interleaved rounds × ${ROUND_MS / 1000} s; machine load average at start: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(row(['limits', 'route', 'req/s', 'of off', 'p50 ms', 'p99 ms', 'errors', 'CPU µs']));
    const rounds: Record<string, { rate: number; p50: number; p99: number; errors: number; cpuUs: number }[]> = {};
    const go = async (server: string, job: (typeof paths)[number][1], durationMs: number) => {
      const cpu = process.cpuUsage();
      const result = await ask({ ...job, port: ports[server]!, durationMs, seqStart: seq });
      const used = process.cpuUsage(cpu);
      seq += result.requests + result.errors + CONNECTIONS;
      return { ...result, cpuUs: (used.user + used.system) / Math.max(1, result.requests) };
    };
    for (const [, job] of paths) for (const server of Object.keys(ports)) await go(server, job, WARMUP_MS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, job] of paths) {
        // Alternate which server goes first, so neither always follows the other's writes.
        const order = round % 2 === 0 ? ['limits on', 'limits off'] : ['limits off', 'limits on'];
        for (const server of order) {
          const result = await go(server, job, ROUND_MS);
          const latencies = result.latenciesMs.sort((a, b) => a - b);
          const figures = { rate: result.requests / result.seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors: result.errors, cpuUs: result.cpuUs };
          (rounds[`${server}|${name}`] ??= []).push(figures);
        }
      }
    }
    for (const [name] of paths) {
      const off = median(rounds[`limits off|${name}`]!.map((r) => r.rate));
      for (const server of ['limits off', 'limits on']) {
        const list = rounds[`${server}|${name}`]!;
        const rate = median(list.map((r) => r.rate));
        const errors = list.reduce((sum, r) => sum + r.errors, 0);
        const cpuUs = median(list.map((r) => r.cpuUs));
        console.log(row([server, name, fmt(rate), `${fmt((rate / off) * 100, 1)} %`, fmt(median(list.map((r) => r.p50)), 2), fmt(median(list.map((r) => r.p99)), 2), fmt(errors), fmt(cpuUs, 1)]));
      }
      const on = median(rounds[`limits on|${name}`]!.map((r) => r.rate));
      const cost = (1 - on / off) * 100;
      // The same cost as CPU per request: the median over the rounds of on's over off's beside it.
      const cpu = (server: string) => rounds[`${server}|${name}`]!.map((r) => r.cpuUs);
      const offCpu = cpu('limits off');
      const cpuCost = (median(cpu('limits on').map((us, i) => us / offCpu[i]!)) - 1) * 100;
      console.log(`${name}: the limits cost ${checked(atMost(cost, 5, 1, ' %', true))} of the throughput; ${fmt(cpuCost, 1)} % more CPU per request`);
    }
    console.log(`machine load average at end: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    await limited.close();
    await unlimited.close();
  } finally {
    generator.close();
    await context.close();
    await target.drop();
  }
}
