import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';
import type { Watchdog } from '../../src/monitoring/watchdog.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 8, 0, 0);

describe.each(dialects)('lost-contact watchdog (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  const running: Watchdog[] = [];
  beforeAll(async () => {
    // Only Date is faked: the watchdog's clock and ingest's reception time jump ahead together,
    // while timers, database drivers and the database's own clock (the lease's) keep real time.
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    app = await startApp(dialect, { SNSR_WATCHDOG_INTERVAL_S: '1' });
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    for (const serial of ['C0FE', '0ACE']) {
      const { id } = (await app.context.repositories.devices.bySerial(serial))!;
      await app.context.repositories.devices.setFlags(id, { watched: true });
    }
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((watchdog) => watchdog.stop()));
  });
  afterAll(async () => {
    vi.useRealTimers();
    await app.close();
  });

  const device = async (serial: string) => (await app.context.repositories.devices.bySerial(serial))!;
  const lost = async (serial: string) => {
    const alerts = await app.context.storage.db.selectFrom('alerts').selectAll().where('kind', '=', 'lost_contact').where('module_serial', '=', serial).execute();
    return alerts;
  };
  const start = (owner: string) => {
    const watchdog = app.context.startWatchdog({ owner });
    running.push(watchdog);
    return watchdog;
  };
  /** Waits on state, not time: real timers drive the passes. */
  async function until<T>(probe: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
    for (let i = 0; ; i++) {
      const value = await probe();
      if (check(value)) return value;
      if (i > 600) throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("raises lost contact once a keep-alive's period and tolerance pass in silence, once only, and the next uplink ends it", async () => {
    await uplink(app, 'C0FE', frames.keepAlive(1, 0, 1), Math.floor(T0 / 1000)); // every hour
    expect(await device('C0FE')).toMatchObject({ network: 'ON', alerts: 0 });
    const watchdog = start('first');

    vi.setSystemTime(T0 + 1.4 * HOUR); // within 1 h + 50 %
    expect(await watchdog.pass()).toEqual([]);
    vi.setSystemTime(T0 + 1.6 * HOUR);
    const [alert] = await until(() => lost('C0FE'), (alerts) => alerts.length === 1);
    expect(alert).toMatchObject({ kind: 'lost_contact', ended_at: null, raised_at: T0 + 1.6 * HOUR });
    expect(alert!.message).toBe('no uplink for 96 min; expected every 60 min');
    expect(await device('C0FE')).toMatchObject({ network: 'OFF', alerts: 1 });

    // More passes, and a second process with its own watchdog: still one alert.
    const second = start('second');
    expect(await second.pass()).toEqual([]);
    expect(await watchdog.pass()).toEqual([]);
    expect(await lost('C0FE')).toHaveLength(1);

    vi.setSystemTime(T0 + 2 * HOUR);
    await uplink(app, 'C0FE', frames.batteryOk(2), Math.floor((T0 + 2 * HOUR) / 1000));
    expect((await lost('C0FE'))[0]).toMatchObject({ ended_at: T0 + 2 * HOUR, end_message: 'uplink received' });
    expect(await device('C0FE')).toMatchObject({ network: 'ON', alerts: 1 });
  });

  it('runs on one process at a time: the lease holder passes, the other waits; a stopped holder hands over at once', async () => {
    const one = start('one');
    const other = start('other');
    await until(async () => [await one.lease.acquire(), await other.lease.acquire()], ([a, b]) => a !== b);
    const [holder, waiting] = (await one.lease.acquire()) ? [one, other] : [other, one];
    expect(await waiting.lease.acquire()).toBe(false);
    await holder.stop();
    expect(await waiting.lease.acquire()).toBe(true);
  });

  it("uses the module's period for devices whose frames announce none, and the app's after it", async () => {
    vi.setSystemTime(T0 + 10 * HOUR);
    await uplink(app, '0ACE', frames.batteryOk(1), Math.floor((T0 + 10 * HOUR) / 1000));
    const set = (query: string) => app.server.inject({ method: 'POST', url: `/iot/developers/alerts/period.json?${query}`, headers: { authorization: alice.auth } });
    expect((await set('sn=0ACE&period=600')).statusCode).toBe(200);
    const watchdog = start('periods');
    vi.setSystemTime(T0 + 10 * HOUR + 14 * 60_000);
    await watchdog.pass();
    expect(await lost('0ACE')).toHaveLength(0);
    vi.setSystemTime(T0 + 10 * HOUR + 16 * 60_000);
    await until(() => lost('0ACE'), (alerts) => alerts.length === 1);

    // Cleared on the module, an app's period applies.
    await uplink(app, '0ACE', frames.batteryOk(2), Math.floor((T0 + 10 * HOUR + 16 * 60_000) / 1000));
    expect((await set('sn=0ACE&period=')).statusCode).toBe(200);
    const appId = (await app.context.apps.save(1, { name: 'watcher' })).id;
    await app.context.apps.attach(1, appId, ['0ACE']);
    expect((await set(`app=${appId}&period=3600`)).statusCode).toBe(200);
    vi.setSystemTime(T0 + 10 * HOUR + 16 * 60_000 + 1.4 * HOUR);
    await watchdog.pass();
    expect(await lost('0ACE')).toHaveLength(1);
    vi.setSystemTime(T0 + 10 * HOUR + 16 * 60_000 + 1.6 * HOUR);
    await until(() => lost('0ACE'), (alerts) => alerts.length === 2);
  });

  it('answers 400 for a bad period and 404 for what the caller does not own', async () => {
    const set = (query: string, auth = alice.auth) => app.server.inject({ method: 'POST', url: `/iot/developers/alerts/period.json?${query}`, headers: { authorization: auth } });
    expect((await set('sn=C0FE&period=10')).json()).toMatchObject({ statusCode: 400, message: expect.stringContaining('period must be') });
    expect((await set('period=600')).statusCode).toBe(400);
    expect((await set('sn=BEEF&period=600')).statusCode).toBe(404);
    expect((await set('app=999&period=600')).json()).toMatchObject({ statusCode: 404, message: 'app 999 not found' });
    const bob = await createDeveloper(app, 'bob@example.com');
    expect((await set('sn=C0FE&period=600', bob.auth)).statusCode).toBe(404);
  });
});
