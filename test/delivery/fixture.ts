import type { Kysely } from 'kysely';
import { enqueueDeliveries } from '../../src/delivery/outbox.js';
import type { Database, DeliveryRow, MessageRow } from '../../src/storage/schema.js';
import { importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import type { Dialect } from '../helpers/database.js';

export interface DeliveryFixture {
  app: TestApp;
  db: Kysely<Database>;
  accountId: number;
  /** creates an app with this callback URL (saved through the domain service) and attaches C0FE */
  createApp(callbackUrl: string | null, name?: string): Promise<{ id: number; secret: string }>;
  /** stores a message of module C0FE and queues its deliveries, as ingestion does */
  message(overrides?: Partial<MessageRow>): Promise<MessageRow>;
  delivery(id: number): Promise<DeliveryRow>;
  deliveries(): Promise<DeliveryRow[]>;
  close(): Promise<void>;
}

let clock = Date.UTC(2024, 4, 1, 12);

/** The real app on a fresh database with callbacks to loopback allowed and a short backoff. */
export async function deliveryFixture(dialect: Dialect, env: Record<string, string> = {}): Promise<DeliveryFixture> {
  const app = await startApp(dialect, { SNSR_CALLBACK_ALLOW_PRIVATE: 'true', SNSR_DELIVERY_BACKOFF_MS: '50', ...env });
  const { context } = app;
  const db = context.storage.db;
  await importCatalog(app);
  const { account } = await context.accounts.create('hooks@example.com', 'Secret123');
  await context.modules.register(account.id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
  const device = (await context.repositories.devices.bySerial('C0FE'))!;
  return {
    app,
    db,
    accountId: account.id,
    async createApp(callbackUrl, name = 'hooked') {
      const created = await context.apps.save(account.id, { name, ...(callbackUrl !== null && { callbackurl: callbackUrl }) });
      await context.apps.attach(account.id, created.id, ['C0FE']);
      return { id: created.id, secret: created.secret };
    },
    async message(overrides = {}) {
      clock += 60_000;
      const message = await context.repositories.messages.insert({
        module_serial: 'C0FE',
        device_id: device.id,
        raw_id: null,
        when_ms: clock,
        time_s: Math.floor(clock / 1000),
        type: 'event:templow',
        station: '1A2B',
        lvl: -121.5,
        frame: '00000046',
        frame_type: 'srv_frm_event',
        code: 'event_temp_low',
        entry_id: 0,
        stamp: 0,
        cpt: 0,
        retry: 0,
        custom: '{"temperature_c":-12}',
        contrib: '{"temp":"LOW"}',
        ctxt: '{"temp":"LOW","battery":"OK"}',
        ...overrides,
      });
      await db.transaction().execute((trx) => enqueueDeliveries(trx, message));
      return message;
    },
    delivery: (id) => db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
    deliveries: () => db.selectFrom('deliveries').selectAll().orderBy('id').execute(),
    close: () => app.close(),
  };
}

/** Polls until `check` holds (deliveries are written back asynchronously after each send). */
export async function eventually<T>(probe: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
