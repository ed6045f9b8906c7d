// Callback delivery: (1) worker throughput, deliveries/s from a full outbox to a receiver in another
// process; (2) the delay from uplink to callback — a real `snsr serve` (ingest and worker in one
// process, default settings) fed uplinks at a steady rate over HTTP, the receiver timing each
// callback against the moment its uplink was sent. Both on SQLite, then PostgreSQL when reachable.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import type { Context } from '../src/context.js';
import { enqueueDeliveries } from '../src/delivery/outbox.js';
import { buildServer } from '../src/http/server.js';
import { decode } from '../src/protocol/udm/index.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const RATES = (process.env.BENCH_DELIVERY_RATES ?? '500,1000,2500,5000').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const APPS = 8;
const MODULES = 200;
const TOKEN = 'bench-network-token';
const silent = pino({ level: 'silent' });

type Dialect = 'sqlite' | 'postgres';
type ChildMessage = { type: 'ready'; port: number } | { type: 'report'; requests: number; rssPeakMb: number; cpuMs: number };

const modules = Array.from({ length: MODULES }, (_, i) => {
  const serial = (0xd0000001 + i).toString(16).toUpperCase();
  return { serial, key: serial, pac: `${serial}${serial}`, protocol: 'UDM23' as const };
});

/** A valid UDM23 event frame whose counters vary with `n` (never the retry bit: each is a new message). */
function frame(n: number): string {
  return `${(((n >> 4) & 7) << 4 | (n & 0x0f)).toString(16).padStart(2, '0')}000046`;
}

// ---------------------------------------------------------------- child processes

/** A receiver that answers 200 at once and counts requests (throughput run). */
async function receiverRole(): Promise<void> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      response.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reporter(() => requests);
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies ChildMessage);
}

/** `snsr serve` with its worker, on a database where every module is attached to one of the apps. */
async function serverRole(): Promise<void> {
  const context = await createContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)), backgroundCheckpoints: true });
  await setup(context, process.env.BENCH_RECEIVER_URL!);
  const app = await buildServer(context);
  await app.listen({ port: 0, host: '127.0.0.1' });
  if (process.env.BENCH_WORKER !== 'separate') context.startWorker();
  reporter(() => 0, async () => {
    await app.close();
    await context.close();
  });
  process.send?.({ type: 'ready', port: (app.server.address() as AddressInfo).port } satisfies ChildMessage);
}

/** `snsr worker`: a worker process of its own on the server's database. */
async function workerRole(): Promise<void> {
  const context = await createContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)), migrate: false });
  context.startWorker();
  reporter(() => 0, () => context.close());
  process.send?.({ type: 'ready', port: 0 } satisfies ChildMessage);
}

function reporter(requests: () => number, close?: () => Promise<void>): void {
  let rssPeak = 0;
  let cpu = process.cpuUsage();
  setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 50).unref();
  process.on('message', async (message: string) => {
    if (message === 'reset') {
      rssPeak = process.memoryUsage.rss();
      cpu = process.cpuUsage();
    } else if (message === 'report') {
      const used = process.cpuUsage(cpu);
      process.send?.({ type: 'report', requests: requests(), rssPeakMb: rssPeak / 2 ** 20, cpuMs: (used.user + used.system) / 1000 } satisfies ChildMessage);
    } else if (message === 'stop') {
      await close?.();
      process.exit(0);
    }
  });
}

/** Catalog, one account owning every module, `appCount` apps with the callback URL, modules spread over them. */
async function setup(context: Context, callbackUrl: string, appCount = APPS): Promise<number[]> {
  await context.repositories.modules.importCatalog(modules);
  const { account } = await context.accounts.create('bench@example.com', 'Secret123');
  await context.modules.register(account.id, modules.map(({ serial, key }) => ({ serial, key })));
  const apps: number[] = [];
  for (let i = 0; i < appCount; i++) {
    const app = await context.apps.save(account.id, { name: `bench ${i}`, callbackurl: callbackUrl });
    await context.apps.attach(account.id, app.id, modules.filter((_, m) => m % appCount === i).map((m) => m.serial));
    apps.push(app.id);
  }
  return apps;
}

function next<T extends ChildMessage['type']>(child: ChildProcess, type: T): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message as Extract<ChildMessage, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
}

function spawnRole(role: string, env: Record<string, string> = {}): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, ...env, SNSR_BENCH_ROLE: role },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
}


const envFor = (url: string) => ({ SNSR_DATABASE_URL: url, SNSR_SECRET: 'bench', SNSR_NETWORK_TOKEN: TOKEN, SNSR_CALLBACK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' });

// ---------------------------------------------------------------- (1) throughput

async function throughput(dialect: Dialect, appCount: number, workerCount = 1): Promise<string | undefined> {
  const db = await benchDatabase(dialect);
  if (!db) return undefined;
  const receiver = spawnRole('delivery-receiver');
  try {
    const { port } = await next(receiver, 'ready');
    const context = await createContext(loadConfig(envFor(db.url)), { log: silent });
    try {
      await setup(context, `http://127.0.0.1:${port}/hook`, appCount);
      // Each message goes to the one app its module is attached to.
      const device = new Map((await context.storage.db.selectFrom('devices').select(['id', 'serial']).where('idx', '=', 0).execute()).map((d) => [d.serial, d.id]));
      for (let start = 0; start < DELIVERIES; start += 500) {
        await context.storage.db.transaction().execute(async (trx) => {
          for (let n = start; n < Math.min(DELIVERIES, start + 500); n++) {
            const module = modules[n % MODULES]!;
            const message = await context.repositories.messages.insert(
              { module_serial: module.serial, device_id: device.get(module.serial)!, raw_id: null, when_ms: 1_700_000_000_000 + n, time_s: 1_700_000_000 + n, type: 'event:batterylow', station: '1A2B', lvl: -120, frame: frame(n), frame_type: 'srv_frm_event', code: 'event_battery_low', entry_id: 0, stamp: 0, cpt: 0, retry: 0, custom: '{}', contrib: '{}', ctxt: '{}' },
              trx,
            );
            await enqueueDeliveries(trx, message);
          }
        });
      }
      // More workers: further contexts on the same database in this process, as other processes'
      // workers would be, each with its own lease owner and sending slots.
      const others = await Promise.all(Array.from({ length: workerCount - 1 }, () => createContext(loadConfig(envFor(db.url)), { log: silent, migrate: false })));
      receiver.send('reset');
      const cpu = process.cpuUsage();
      const started = performance.now();
      const workers = [context, ...others].map((c) => c.startWorker());
      const total = (key: 'delivered' | 'failed' | 'retrying') => workers.reduce((sum, worker) => sum + worker.stats[key], 0);
      while (total('delivered') + total('failed') + total('retrying') < DELIVERIES) await new Promise((resolve) => setTimeout(resolve, 10));
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      receiver.send('report');
      const report = await next(receiver, 'report');
      await Promise.all(workers.map((worker) => worker.stop()));
      for (const other of others) await other.close();
      if (report.requests !== DELIVERIES || total('delivered') !== DELIVERIES) {
        throw new Error(`${dialect}: ${total('delivered')} delivered, ${report.requests} received, of ${DELIVERIES}`);
      }
      const cpuPer = ((used.user + used.system) / DELIVERIES).toFixed(0);
      return `${dialect.padEnd(9)}${String(appCount).padStart(5)}${String(workerCount).padStart(8)}${String(DELIVERIES).padStart(11)}${`${Math.round(DELIVERIES / seconds)}/s`.padStart(14)}${`${cpuPer} µs`.padStart(18)}${`${(report.cpuMs * 1000 / DELIVERIES).toFixed(0)} µs`.padStart(20)}`;
    } finally {
      await context.close();
    }
  } finally {
    await stopChild(receiver);
    await db.drop();
  }
}

// ---------------------------------------------------------------- (2) uplink → callback delay

interface Tracker {
  sentAt: Map<string, number>;
  delays: number[];
  received: number;
  measuring: boolean;
}

function startReceiver(tracker: Tracker): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      response.end();
      // The uplink's network time (`when` is the time snsr received it).
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { module: string; message: { extra: { time: number } } };
      const key = `${body.module}:${body.message.extra.time}`;
      const sent = tracker.sentAt.get(key);
      tracker.received++;
      if (sent !== undefined) {
        tracker.sentAt.delete(key);
        if (tracker.measuring) tracker.delays.push(at - sent);
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Sends uplinks at `rate`/s for `seconds`, each a new message of one of the modules. */
async function feed(port: number, rate: number, seconds: number, tracker: Tracker, counter: { n: number }): Promise<{ sent: number; failed: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const started = performance.now();
  let sent = 0;
  let failed = 0;
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const n = counter.n++;
    const module = modules[n % MODULES]!;
    const round = Math.floor(n / MODULES);
    const time = 1_800_000_000 + round;
    const body = JSON.stringify({ device: module.serial, time, data: frame(round), seqNumber: round, station: '1A2B', rssi: -120, snr: 10 });
    const key = `${module.serial}:${time}`;
    const done = new Promise<void>((resolve) => {
      const request = http.request({ host: '127.0.0.1', port, path: '/network/sigfox/uplink', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` } }, (response) => {
        response.resume();
        if (response.statusCode !== 200) failed++;
        response.on('end', resolve);
      });
      request.on('error', () => {
        failed++;
        resolve();
      });
      tracker.sentAt.set(key, performance.now());
      request.end(body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    sent++;
  };
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (sent < due) send();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { sent, failed };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

type Layout = 'in-process' | 'separate';

/** Runs every rate against one server (and, for `separate`, one `snsr worker` process beside it). */
async function delay(dialect: Dialect, layout: Layout): Promise<string[]> {
  const db = await benchDatabase(dialect);
  if (!db) return [];
  const tracker: Tracker = { sentAt: new Map(), delays: [], received: 0, measuring: false };
  const receiver = await startReceiver(tracker);
  const env = { ...envFor(db.url), BENCH_RECEIVER_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, BENCH_WORKER: layout };
  const server = spawnRole('delivery-server', env);
  let worker: ChildProcess | undefined;
  const rows: string[] = [];
  try {
    const { port } = await next(server, 'ready');
    if (layout === 'separate') {
      worker = spawnRole('delivery-worker', env);
      await next(worker, 'ready');
    }
    const children = [server, ...(worker ? [worker] : [])];
    const counter = { n: 0 };
    for (const rate of RATES) {
      tracker.measuring = false;
      await feed(port, rate, WARMUP_SECONDS, tracker, counter);
      tracker.delays = [];
      tracker.measuring = true;
      const receivedBefore = tracker.received;
      for (const child of children) child.send('reset');
      const started = performance.now();
      const { sent, failed } = await feed(port, rate, SECONDS, tracker, counter);
      const sendSeconds = (performance.now() - started) / 1000;
      // Let the backlog drain (callbacks for every uplink of the run), then read the processes' figures.
      const deadline = performance.now() + 20_000;
      while (tracker.sentAt.size > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const drainSeconds = (performance.now() - started) / 1000;
      const reports = await Promise.all(children.map((child) => {
        const report = next(child, 'report');
        child.send('report');
        return report;
      }));
      const cpuMs = reports.reduce((sum, r) => sum + r.cpuMs, 0);
      const sorted = tracker.delays.sort((a, b) => a - b);
      const late = tracker.sentAt.size;
      tracker.sentAt.clear();
      rows.push(
        `${dialect.padEnd(9)}${layout.padEnd(12)}${`${rate}/s`.padStart(8)}${`${Math.round(sent / sendSeconds)}/s`.padStart(10)}` +
          `${`${Math.round((tracker.received - receivedBefore) / drainSeconds)}/s`.padStart(11)}` +
          `${fmtMs(percentile(sorted, 50))}${fmtMs(percentile(sorted, 99))}${fmtMs(sorted.at(-1) ?? NaN)}` +
          `${`${Math.max(...reports.map((r) => r.rssPeakMb)).toFixed(0)} MB`.padStart(9)}${`${((cpuMs * 1000) / Math.max(1, sent)).toFixed(0)} µs`.padStart(10)}` +
          (failed + late > 0 ? `   (${failed} uplinks refused, ${late} callbacks still queued after 20 s of drain)` : ''),
      );
    }
    return rows;
  } finally {
    if (worker) await stopChild(worker);
    await stopChild(server);
    await new Promise((resolve) => receiver.close(resolve));
    await db.drop();
  }
}

const fmtMs = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${ms.toFixed(0)} ms`).padStart(9);

export async function run(): Promise<void> {
  // The frames the bench sends are valid, so every uplink becomes a message and a delivery.
  if (!decode(frame(0), 'UDM23').ok) throw new Error('bench frame does not decode');
  console.log(`node ${process.version}; default delivery settings (32 in flight, 4 per app); ${APPS} apps, ${MODULES} modules`);
  console.log(`\n(1) worker throughput: ${DELIVERIES} queued deliveries to a receiver in another process (answers 200 at once)`);
  console.log(`${'database'.padEnd(9)}${'apps'.padStart(5)}${'workers'.padStart(8)}${'deliveries'.padStart(11)}${'delivered'.padStart(14)}${'worker CPU/each'.padStart(18)}${'receiver CPU/each'.padStart(20)}`);
  // Spread over the apps (each sending 4 at a time), then all for one app: a fleet's single
  // integration, its backlog in front of every claim. On PostgreSQL also two workers sharing that
  // one app's 4 slots (a SQLite file has one worker).
  for (const dialect of ['sqlite', 'postgres'] as const) {
    for (const [appCount, workerCount] of [[APPS, 1], [1, 1], ...(dialect === 'postgres' ? [[1, 2]] : [])]) {
      const row = await throughput(dialect, appCount, workerCount);
      if (row) console.log(row);
    }
  }
  // BENCH_DELIVERY_PARTS=throughput runs part (1) alone.
  if (process.env.BENCH_DELIVERY_PARTS === 'throughput') return;
  console.log(`\n(2) uplink → callback: uplinks over HTTP at a steady rate for ${SECONDS} s (after ${WARMUP_SECONDS} s of warm-up) to snsr serve with its`);
  console.log('    worker in-process, or (PostgreSQL) to snsr serve --no-worker with one snsr worker process beside it');
  console.log(`${'database'.padEnd(9)}${'worker'.padEnd(12)}${'target'.padStart(8)}${'uplinks'.padStart(10)}${'callbacks'.padStart(11)}${'p50'.padStart(9)}${'p99'.padStart(9)}${'max'.padStart(9)}${'RSS'.padStart(9)}${'CPU/up'.padStart(10)}`);
  // A SQLite file belongs to one process (snsr worker refuses it), so only PostgreSQL runs a worker apart.
  for (const [dialect, layout] of [['sqlite', 'in-process'], ['postgres', 'in-process'], ['postgres', 'separate']] as const) {
    for (const row of await delay(dialect, layout)) console.log(row);
  }
  console.log('delay = from sending the uplink to the callback arriving at the receiver (both timed in the load-generator process);');
  console.log('callbacks/s = callbacks received over the run, including the drain of any backlog after the last uplink;');
  console.log('RSS = peak of the largest snsr process; CPU/up = CPU of the snsr process(es) per uplink (ingest and delivery).');
}

if (process.env.SNSR_BENCH_ROLE === 'delivery-receiver') await receiverRole();
if (process.env.SNSR_BENCH_ROLE === 'delivery-server') await serverRole();
if (process.env.SNSR_BENCH_ROLE === 'delivery-worker') await workerRole();
