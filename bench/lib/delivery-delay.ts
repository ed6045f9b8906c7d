// The delivery bench's part (2): from an uplink sent over HTTP to its callback at the receiver.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { benchDatabase } from '../../test/helpers/scratch-database.js';
import { percentile } from './closed-loop.js';
import { MODULES, TOKEN, envFor, frame, modules, next, spawnRole, stopChild } from './delivery-roles.js';
import type { Dialect } from './delivery-roles.js';

export const RATES = (process.env.BENCH_DELIVERY_RATES ?? '500,1000,2500,5000').split(',').map(Number);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

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

type Layout = 'in-process' | 'separate';

/** Runs every rate against one server (and, for `separate`, one `snsr worker` process beside it). */
export async function delay(dialect: Dialect, layout: Layout): Promise<string[]> {
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
          `${fmtMs(percentile(sorted, 0.5))}${fmtMs(percentile(sorted, 0.99))}${fmtMs(sorted.at(-1) ?? NaN)}` +
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
