// Callback delivery: (1) worker throughput, deliveries/s from a full outbox to a receiver in another
// process; (2) the delay from uplink to callback — a real `snsr serve` (ingest and worker in one
// process, default settings) fed uplinks at a steady rate over HTTP, the receiver timing each
// callback against the moment its uplink was sent. Both on SQLite, then PostgreSQL when reachable.
import { decode } from '../src/protocol/udm/index.js';
import { APPS, MODULES, frame } from './lib/delivery-roles.js';
import { DELIVERIES, throughput } from './lib/delivery-throughput.js';
import { SECONDS, WARMUP_SECONDS, delay } from './lib/delivery-delay.js';

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
