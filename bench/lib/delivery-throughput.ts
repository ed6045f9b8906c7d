// The delivery bench's part (1): how fast workers empty a full outbox into a receiver process.
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { enqueueDeliveries } from '../../src/delivery/outbox.js';
import { benchDatabase } from '../../test/helpers/scratch-database.js';
import { MODULES, envFor, frame, modules, next, setup, silent, spawnRole, stopChild } from './delivery-roles.js';
import type { Dialect } from './delivery-roles.js';

export const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);

export async function throughput(dialect: Dialect, appCount: number, workerCount = 1): Promise<string | undefined> {
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
