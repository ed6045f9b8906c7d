import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

// An app's in-flight limit counts requests at its receiver. A result still waiting for its commit
// is not a request in flight: the app's next one goes out meanwhile. (On SQLite the claims hold
// the limit, each until its result is written: there the next one waits by design.)
describe.runIf(dialects.includes('postgres'))('an app’s in-flight limit counts requests, not results being written', () => {
  let fixture: DeliveryFixture | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  it('sends the app’s next request while the last one’s result waits on a locked table, one at a time', async () => {
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    // The first request is answered only once the results' table is locked against writes.
    receiver = await startReceiver((n) => ({ status: 200, ...(n === 0 && { until: lockTaken }) }));
    fixture = await deliveryFixture('postgres', { SNSR_DELIVERY_PER_APP_CONCURRENCY: '1' });
    await fixture.createApp(receiver.url);
    for (let i = 0; i < 3; i++) await fixture.message();
    const worker = fixture.app.context.startWorker({ pollMs: 20 });
    const [first] = await receiver.waitFor(1);

    await fixture.db.transaction().execute(async (trx) => {
      // Writes to deliveries wait (the first result among them); reads, such as the fence's, go on.
      await sql`lock table deliveries in exclusive mode`.execute(trx);
      locked();
      // Well within the first claim's lease (30 s), after which it could be sent again.
      const [, second] = await receiver!.waitFor(2, 20_000);
      // The second delivery's request came while the first one's result could not be written.
      expect(second!.headers['x-snsr-delivery']).not.toBe(first!.headers['x-snsr-delivery']);
      const firstRow = await trx.selectFrom('deliveries').select(['status']).where('uuid', '=', String(first!.headers['x-snsr-delivery'])).executeTakeFirstOrThrow();
      expect(firstRow.status).toBe('pending');
      expect(second!.at).toBeGreaterThanOrEqual(first!.answeredAt!);
    });

    const delivered = await eventually(() => fixture!.deliveries(), (ds) => ds.every((d) => d.status === 'delivered'), 30_000);
    expect(delivered.map((d) => d.attempts)).toEqual([1, 1, 1]);
    expect(receiver.received).toHaveLength(3);
    expect(worker.stats).toMatchObject({ sent: 3, delivered: 3, fenced: 0 });
    // Never two of the app's requests at the receiver at once: each came after the one before was answered.
    const [a, b, c] = receiver.received;
    expect(b!.at).toBeGreaterThanOrEqual(a!.answeredAt!);
    expect(c!.at).toBeGreaterThanOrEqual(b!.answeredAt!);
  });
});
