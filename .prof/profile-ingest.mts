import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { catalogCsv, generatedModules } from '../src/simulator/fleet.js';

const url = process.argv[2]!;
const N = Number(process.argv[3] ?? 20000);
const context = await createContext(loadConfig({ SNSR_DATABASE_URL: url, SNSR_SECRET: 'x', SNSR_NETWORK_TOKEN: 't' }), { log: pino({ level: 'error' }) });
const modules = generatedModules(1000);
await context.catalog.import(catalogCsv(modules));
const T = 1_790_000_000;
const start = process.cpuUsage();
const t0 = performance.now();
let inflight: Promise<unknown>[] = [];
for (let n = 0; n < N; n++) {
  const m = modules[n % 1000]!;
  const seq = Math.floor(n / 1000);
  inflight.push(context.ingest.receive({ device: m.serial, time: T + seq * 600, data: `0${(seq % 16).toString(16)}0300189167`, seqNumber: seq, station: '1A2B', rssi: -120, snr: 10 }));
  if (inflight.length >= 32) { await Promise.all(inflight); inflight = []; }
}
await Promise.all(inflight);
const cpu = process.cpuUsage(start);
console.log(`${N} uplinks in ${(performance.now() - t0).toFixed(0)} ms; CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(3)} ms/uplink`);
await context.close();
