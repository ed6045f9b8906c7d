// The ingest bench's server process (forked by bench/ingest.ts, compiled as `npm start` runs):
// snsr on the bench database and, beside it in the same process, the floor: a bare Fastify server
// (no plugin, no hook, no schema) answering the same bytes as snsr answers a new uplink. Told over
// IPC when to start measuring, it reports its peak RSS, CPU, event-loop use and stored raw messages.
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { limitHeapGrowth } from '../../src/cli/heap-growth.js';
import { buildServer } from '../../src/http/server.js';
import { catalogCsv, generatedModules } from '../../src/simulator/fleet.js';
import { pipelineAlone } from './pipeline-load.js';
import type { PipelineRun } from './pipeline-load.js';

export const MODULES = Number(process.env.BENCH_MODULES ?? 1000);
export const UPLINK_PATH = '/network/sigfox/uplink';
/** What snsr answers for a new uplink's callback, byte for byte: the floor answers this. */
const ANSWER = '{"uplink":"new","frame":"message","device":"F0000001","type":"keepalive:voltagetemp"}';

export interface ServerReport {
  rssPeakMb: number;
  cpuMs: number;
  /** Share of the time the server's event loop was busy: below ~0.9, something else limited the run. */
  busy: number;
  rawMessages: number;
  /** SQLite: the WAL file's largest size during the run (MB); 0 on PostgreSQL. */
  walPeakMb: number;
}

export type Message = { type: 'ready'; port: number; floorPort: number } | ({ type: 'report' } & ServerReport) | ({ type: 'pipeline' } & PipelineRun);
/**
 * What the orchestrator tells the server: start measuring (and profiling, under this name), report,
 * run `uplinks` straight into the pipeline (no HTTP, `concurrency` in flight) and report that, stop.
 */
export type Command = { type: 'reset'; profile?: string } | { type: 'report' } | { type: 'pipeline'; uplinks: number; concurrency: number; seed: number } | { type: 'stop' };

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
  // BENCH_CPU_PROF=<dir>: a CPU profile of each load's first measured round (warm-up and other rounds left out).
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
      // Busy from the round's first request on: the simulator's start-up is not time the server idled.
      const servers = [app.server, bare.server];
      const started = () => {
        loop = performance.eventLoopUtilization();
        for (const server of servers) server.off('request', started);
      };
      for (const server of servers) server.on('request', started);
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
    } else if (message.type === 'pipeline') {
      const run = await pipelineAlone(context.ingest, generatedModules(MODULES), message.uplinks, message.concurrency, message.seed);
      process.send?.({ type: 'pipeline', ...run } satisfies Message);
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

if (process.env.SNSR_BENCH_ROLE === 'server') await serve();
