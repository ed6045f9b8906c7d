import { afterEach, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { deliveryFixture, eventually } from './fixture.js';
import type { DeliveryFixture } from './fixture.js';
import { startReceiver } from './receiver.js';
import type { Receiver } from './receiver.js';

describe.each(dialects)('callbacks to private addresses (%s)', (dialect) => {
  let fixture: DeliveryFixture;
  let receiver: Receiver;
  afterEach(async () => {
    await fixture?.close();
    await receiver?.close();
  });

  it('are refused at send time, after DNS, unless SNSR_CALLBACK_ALLOW_PRIVATE=true', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect, { SNSR_CALLBACK_ALLOW_PRIVATE: 'false', SNSR_DELIVERY_MAX_ATTEMPTS: '1' });
    // Saved while public; the stored URL then points inward (as if saved while private targets were
    // allowed, or as a name whose DNS now answers a private address).
    const byName = await fixture.createApp('https://example.com/hook', 'by name');
    const literal = await fixture.createApp('https://example.org/hook', 'literal');
    const mapped = await fixture.createApp('https://example.net/hook', 'mapped');
    const point = (id: number, url: string) => fixture.db.updateTable('apps').set({ callback_url: url }).where('id', '=', id).execute();
    await point(byName.id, `http://localhost:${receiver.port}/hook`);
    await point(literal.id, `http://127.0.0.1:${receiver.port}/hook`);
    await point(mapped.id, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`);
    await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20 });

    const rows = await eventually(() => fixture.deliveries(), (ds) => ds.every((d) => d.status === 'failed'));
    const error = (appId: number) => rows.find((d) => d.app_id === appId)!.last_error;
    expect(error(byName.id)).toMatch(/^refused: (127\.0\.0\.1|::1) is not a public address \(loopback\)$/);
    expect(error(literal.id)).toBe('refused: 127.0.0.1 is not a public address (loopback)');
    expect(error(mapped.id)).toBe('refused: ::ffff:7f00:1 is not a public address (ipv4Mapped of 127.0.0.1, loopback)');
    expect(rows.every((d) => d.attempts === 1 && d.last_status_code === null)).toBe(true);
    expect(receiver.received).toHaveLength(0);
  });

  it('are sent when SNSR_CALLBACK_ALLOW_PRIVATE=true, by name too', async () => {
    receiver = await startReceiver();
    fixture = await deliveryFixture(dialect, { SNSR_CALLBACK_ALLOW_PRIVATE: 'true' });
    await fixture.createApp(`http://localhost:${receiver.port}/by-name`);
    await fixture.message();
    fixture.app.context.startWorker({ pollMs: 20 });
    const [request] = await receiver.waitFor(1);
    expect(request!.path).toBe('/by-name');
    await eventually(() => fixture.deliveries(), ([d]) => d!.status === 'delivered');
  });
});
