// Monitoring's costs. (1) Live-stream fan-out: 1,000 SSE streams open on one process for one
// module; uplinks ingested one by one; each stream times each message event against the uplink's
// commit: p50/p99 uplink-to-event over every (stream, uplink). (2) What alerts, MQTT and metrics
// cost ingest: uplinks/s through the pipeline with all three at work (watched modules sending a
// fleet's mix of keep-alives and one alarm event in 25, the MQTT bridge publishing to the local broker, the metrics observer), against the
// same pipeline without them, alternated five times in one run (order swapped each time); the ratio of
// medians is the cost.
// SQLite, then PostgreSQL when reachable.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import type { Context } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { IngestService } from '../src/ingest/ingest-service.js';
import { legacyDate } from '../src/wire/legacy-date.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const UPLINKS = Number(process.env.BENCH_STREAM_UPLINKS ?? 50);
const INGEST_UPLINKS = Number(process.env.BENCH_INGEST_UPLINKS ?? 3000);
const CONCURRENCY = 32;
const ROUNDS = 5;
const MODULES = 200;
const silent = pino({ level: 'silent' });

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** UDM23 battery low / battery OK events, counters varying with n (never a repetition). */
const frame = (n: number) => Buffer.from([n & 0x0f | ((n >> 4) & 7) << 4, 0, n % 2 === 0 ? 0x00 : 0x01, 0x91]).toString('hex');
/**
 * A fleet's mix: hourly keep-alives, and one alarm event (battery low, then OK) in 25 uplinks.
 * Every uplink of a watched device still runs the alert step (it ends a lost-contact alert).
 */
const fleetFrame = (n: number) =>
  n % 25 === 0 ? frame(n / 25) : Buffer.from([n & 0x0f | ((n >> 4) & 7) << 4, 3, 0x00, 0x01, 0x91, 0x67]).toString('hex');

async function setUp(context: Context, prefix: number): Promise<{ serials: string[]; accountId: number }> {
  const modules = Array.from({ length: MODULES }, (_, i) => {
    const serial = (prefix + i).toString(16).toUpperCase();
    return { serial, key: serial.padStart(8, '0'), pac: serial.padStart(16, '0'), protocol: 'UDM23' as const };
  });
  await context.repositories.modules.importCatalog(modules);
  const { account } = await context.accounts.create(`bench${prefix}@example.com`, 'Secret123');
  await context.modules.register(account.id, modules.map((m) => ({ serial: m.serial, key: m.key })));
  return { serials: modules.map((m) => m.serial), accountId: account.id };
}

/** Opens `count` SSE streams; each records when every message id arrives. */
async function openStreams(port: number, token: string, serial: string, count: number): Promise<{ arrivals: Map<number, number>[]; close: () => void }> {
  const arrivals: Map<number, number>[] = [];
  const requests: http.ClientRequest[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<void>((resolve, reject) => {
        const seen = new Map<number, number>();
        arrivals.push(seen);
        const request = http.get({ host: '127.0.0.1', port, agent, path: `/iot/developers/stream?serial=${serial}`, headers: { authorization: `Basic ${token}` } }, (response) => {
          if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
          let buffer = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const match = /^event: message\ndata: \{"id":(\d+)/m.exec(block);
              if (match) seen.set(Number(match[1]), performance.now());
            }
          });
          resolve();
        });
        request.on('error', reject);
        requests.push(request);
      }),
    ),
  );
  return { arrivals, close: () => requests.forEach((r) => r.destroy()) };
}

async function fanOut(context: Context, label: string): Promise<void> {
  const { serials, accountId } = await setUp(context, 0xe0000000);
  const account = (await context.repositories.accounts.byId(accountId))!;
  const token = context.accounts.token(account);
  const server = await buildServer(context);
  await server.listen({ port: 0, host: '127.0.0.1' });
  const port = (server.server.address() as AddressInfo).port;
  const streams = await openStreams(port, token, serials[0]!, STREAMS);
  await context.streams.hub.ready();
  const committed = new Map<number, number>();
  for (let n = 0; n < UPLINKS; n++) {
    const result = await context.ingest.receive({ device: serials[0]!, time: 1_714_567_890 + n, data: frame(n), seqNumber: n });
    committed.set(result.messageId!, performance.now());
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const latencies: number[] = [];
  let missing = 0;
  for (const seen of streams.arrivals) {
    for (const [id, at] of committed) {
      const arrived = seen.get(id);
      if (arrived === undefined) missing++;
      else latencies.push(arrived - at);
    }
  }
  latencies.sort((a, b) => a - b);
  console.log(
    `${label}: ${STREAMS} streams × ${UPLINKS} uplinks: uplink-to-event p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${latencies[latencies.length - 1]!.toFixed(1)} ms; missed ${missing}`,
  );
  streams.close();
  await server.close();
}

async function ingestRate(ingest: IngestService, serials: string[], start: number): Promise<number> {
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < INGEST_UPLINKS) {
        const n = next++;
        const serial = serials[n % serials.length]!;
        const k = start + Math.floor(n / serials.length);
        await ingest.receive({ device: serial, time: 1_714_567_890 + k, data: fleetFrame(k), seqNumber: k % 4096 });
      }
    }),
  );
  return INGEST_UPLINKS / ((performance.now() - began) / 1000);
}

async function ingestCost(context: Context, label: string): Promise<void> {
  const plain = await setUp(context, 0xe1000000);
  const full = await setUp(context, 0xe2000000);
  // Without: a pipeline with no observer (metrics), modules nobody watches, no MQTT bridge.
  const bare = new IngestService(context.storage, silent, { dateText: (ms) => legacyDate(new Date(ms), 'UTC') });
  // With: watched modules attached to an app, the metrics observer, and the bridge when a broker answers.
  await context.storage.db.updateTable('devices').set({ watched: 1 }).where('module_serial', 'in', full.serials).execute();
  const app = await context.apps.save(full.accountId, { name: 'mqtt' });
  await context.apps.attach(full.accountId, app.id, full.serials);
  const bridge = context.startMqtt({ settleMs: 200, pollMs: 200 });
  const without: number[] = [];
  const withAll: number[] = [];
  // A warm-up round each, not counted: the first statements of a run are compiled and cached.
  await ingestRate(bare, plain.serials, 0);
  await ingestRate(context.ingest, full.serials, 0);
  // Five rounds, the order swapped every round: a machine that slows down (or speeds up) through the
  // run weighs on both sides alike instead of on whichever always runs second.
  for (let round = 1; round <= ROUNDS; round++) {
    const pair = [() => ingestRate(bare, plain.serials, round * 100).then((r) => without.push(r)), () => ingestRate(context.ingest, full.serials, round * 100).then((r) => withAll.push(r))];
    for (const measure of round % 2 === 1 ? pair : pair.reverse()) await measure();
  }
  const alerts = await context.storage.db.selectFrom('alerts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const a = median(without);
  const b = median(withAll);
  console.log(
    `${label}: ingest ${INGEST_UPLINKS} uplinks × ${ROUNDS} rounds, concurrency ${CONCURRENCY}: without alerts/MQTT/metrics ${a.toFixed(0)}/s (${without.map((v) => v.toFixed(0)).join(', ')}), ` +
      `with ${b.toFixed(0)}/s (${withAll.map((v) => v.toFixed(0)).join(', ')}); cost ${((1 - b / a) * 100).toFixed(1)} %` +
      `; ${Number(alerts.n)} alerts raised; MQTT ${bridge ? (bridge.connected ? 'publishing' : 'broker not reached') : 'off'}`,
  );
}

export async function run(): Promise<void> {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const database = await benchDatabase(dialect);
    if (!database) continue;
    const context = await createContext(
      loadConfig({ SNSR_DATABASE_URL: database.url, SNSR_SECRET: 'bench', SNSR_MQTT_URL: process.env.SNSR_MQTT_URL ?? 'mqtt://127.0.0.1:1883', SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' }),
      { log: silent, backgroundCheckpoints: true },
    );
    try {
      await fanOut(context, dialect);
      await ingestCost(context, dialect);
    } finally {
      await context.close();
      await database.drop();
    }
  }
}
