// What long bulk work does to everyone else: `/healthz` latency, polled one request at a time,
// while one request registers 10,000 modules and another attaches them to an app (SQLite, whose
// synchronous queries are the ones that could hold the event loop). The floor is the same poll
// with nothing else running, measured first in the same run.
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { buildServer } from '../src/http/server.js';
import { benchDatabase } from '../test/helpers/scratch-database.js';

const COUNT = Number(process.env.BENCH_BULK_MODULES ?? 10_000);
const serialOf = (i: number) => `B${i.toString(16).toUpperCase().padStart(6, '0')}`;
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * q) - 1)]!;

/** Polls `/healthz` every 10 ms until `work` settles (or `samples` answers when there is no work). */
async function poll(base: string, work?: Promise<unknown>, samples = 200): Promise<number[]> {
  const latencies: number[] = [];
  let done = false;
  void work?.finally(() => (done = true));
  while (work ? !done : latencies.length < samples) {
    const start = performance.now();
    await (await fetch(`${base}/healthz`)).text();
    latencies.push(performance.now() - start);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await work;
  return latencies;
}

export async function run(): Promise<void> {
  const database = (await benchDatabase('sqlite'))!;
  const config = loadConfig({ SNSR_DATABASE_URL: database.url, SNSR_SECRET: 'bench-secret', LOG_LEVEL: 'silent' });
  const context = await createContext(config, { log: pino({ level: 'silent' }) });
  const server = await buildServer(context);
  const app = { context, server };
  try {
    await context.accounts.create('bench@example.com', 'Secret123');
    const auth = `Basic ${Buffer.from('bench@example.com:Secret123').toString('base64')}`;
    const catalog = Array.from({ length: COUNT }, (_, i) => ({ serial: serialOf(i), key: '0000BEEF', pac: '0000000000000000', protocol: 'UDM23' as const }));
    await app.context.repositories.modules.importCatalog(catalog);
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.text());

    const floor = await poll(base);
    const serials = catalog.map((m) => m.serial);
    const registering = await poll(base, post('/iot/developers/modules.json', serials.map((serial) => ({ serial, key: '0000BEEF' }))));
    const created = (await app.server.inject({ method: 'POST', url: '/iot/developers/apps.json', headers: { authorization: auth }, payload: { name: 'bulk' } })).json() as { id: number };
    const attaching = await poll(base, post(`/iot/developers/apps/${created.id}/modules/attach.json`, { serials }));

    console.log(`load average ${loadavg()[0]!.toFixed(1)}; ${COUNT} modules; /healthz polled every 10 ms`);
    const floorP99 = quantile(floor, 0.99);
    for (const [name, values] of [['idle (floor)', floor], ['during registration', registering], ['during attach', attaching]] as const) {
      const p99 = quantile(values, 0.99);
      console.log(`${name.padEnd(22)} answers ${String(values.length).padStart(5)}  p50 ${quantile(values, 0.5).toFixed(1).padStart(6)} ms  p99 ${p99.toFixed(1).padStart(6)} ms  (${(p99 / floorP99).toFixed(1)}× floor p99; target p99 < 100 ms: ${p99 < 100 ? 'met' : 'missed'})`);
    }
  } finally {
    await server.close();
    await context.close();
    await database.drop();
  }
}
