import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { fleetModule, seedFleet } from '../../helpers/fleet.js';
import { frames, uplink } from '../../helpers/uplinks.js';

const COUNT = 40;
const HOUR = 3_600_000;
const now = Date.now();
const nowS = Math.floor(now / 1000);
const fleet = Array.from({ length: COUNT }, (_, k) => fleetModule(k + 1, now));

interface AlertWire {
  id: number;
  module: string;
  device: string;
  kind: string;
  ended: number | null;
}
interface OverviewWire {
  generated: number;
  modules: { total: number; seen_24h: number; never_seen: number; low_battery: number };
  alerts: { open: number; lost_contact: number; latest: AlertWire[]; lost_contact_latest: AlertWire[] };
  deliveries: { failed: number; apps: { id: number; name: string; failed: number; last_failed: number | null; last_error: string | null }[] };
  uplinks: { hour: number; count: number }[];
}

describe.each(dialects)('developer overview (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  let aliceId: number;
  const uplinkTimes = [nowS - 3 * 3600, nowS - 3 * 3600 + 60, nowS - 3600, nowS - 30 * 3600];

  const overview = async (auth: string) => {
    const response = await app.server.inject({ method: 'GET', url: '/iot/developers/overview.json', headers: { authorization: auth } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<OverviewWire>();
  };

  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    const db = app.context.storage.db;
    aliceId = (await db.selectFrom('accounts').select('id').where('email', '=', 'alice@example.com').executeTakeFirstOrThrow()).id;
    await seedFleet(db, aliceId, COUNT, now);
    for (const [k, time] of uplinkTimes.entries()) await uplink(app, k % 2 === 0 ? 'F0000001' : 'F0000002', frames.keepAlive(k), time);
    // Bob's module and uplink count for Bob only.
    const registered = await app.server.inject({ method: 'POST', url: '/iot/developers/modules.json', headers: { authorization: bob.auth }, payload: [{ serial: 'C0FE', key: '1A2B3C4D' }] });
    expect(registered.statusCode).toBe(200);
    await uplink(app, 'C0FE', frames.keepAlive(1), nowS - 3600);

    const device = async (serial: string) => (await db.selectFrom('devices').select('id').where('serial', '=', serial).executeTakeFirstOrThrow()).id;
    await db
      .insertInto('alerts')
      .values([
        { account_id: aliceId, module_serial: 'F0000005', device_id: await device('F0000005'), kind: 'lost_contact', message: 'no uplink for 2 h', raised_at: now - HOUR },
        { account_id: aliceId, module_serial: 'F0000006', device_id: await device('F0000006'), kind: 'tamper', message: 'tamper', raised_at: now - HOUR, ended_at: now },
      ])
      .execute();

    const created = await app.server.inject({ method: 'POST', url: '/iot/developers/apps.json', headers: { authorization: alice.auth }, payload: { name: 'Rooftop' } });
    const appId = Number(created.json<{ id: number }>().id);
    const messages = await db.selectFrom('messages').select('id').where('module_serial', 'in', ['F0000001', 'F0000002']).orderBy('id').execute();
    expect(messages.length).toBe(4);
    await db
      .insertInto('deliveries')
      .values(
        messages.map((m, k) => ({
          uuid: `u-${k}`,
          app_id: appId,
          message_id: m.id,
          status: k === 3 ? 'delivered' : 'failed',
          attempts: 1,
          next_attempt_at: now,
          last_error: `connect ECONNREFUSED (${k})`,
          created_at: now - 10_000 + k,
          updated_at: now - 10_000 + k,
        })),
      )
      .execute();
  });
  afterAll(() => app.close());

  it('answers 401 without credentials', async () => {
    expect((await app.server.inject({ method: 'GET', url: '/iot/developers/overview.json' })).statusCode).toBe(401);
  });

  it('counts the caller’s modules, alerts, failed deliveries and uplinks per hour, and lists the latest', async () => {
    const body = await overview(alice.auth);
    expect(body.generated).toBeGreaterThanOrEqual(now);
    expect(body.modules).toEqual({
      total: COUNT,
      seen_24h: fleet.filter((m) => m.lastseen !== null && m.lastseen >= now - 24 * HOUR).length,
      never_seen: fleet.filter((m) => m.lastseen === null).length,
      low_battery: fleet.filter((m) => m.battery === 'OFF').length,
    });
    const seededOpen = fleet.filter((m) => m.alert).length;
    expect(body.alerts.open).toBe(seededOpen + 1);
    expect(body.alerts.lost_contact).toBe(1);
    expect(body.alerts.latest.map((a) => [a.module, a.kind, a.ended !== null])).toEqual([
      ['F0000006', 'tamper', true],
      ['F0000005', 'lost_contact', false],
      ...fleet
        .filter((m) => m.alert)
        .reverse()
        .map((m) => [m.serial, 'battery', false]),
    ]);
    expect(body.alerts.lost_contact_latest.map((a) => [a.device, a.kind])).toEqual([['F0000005', 'lost_contact']]);

    expect(body.deliveries.failed).toBe(3);
    expect(body.deliveries.apps).toEqual([{ id: expect.any(Number), name: 'Rooftop', failed: 3, last_failed: now - 10_000 + 2, last_error: 'connect ECONNREFUSED (2)' }]);

    expect(body.uplinks).toHaveLength(24);
    const firstHour = (Math.floor(body.generated / HOUR) - 23) * HOUR;
    expect(body.uplinks.map((b) => b.hour)).toEqual(Array.from({ length: 24 }, (_, k) => firstHour + k * HOUR));
    const expected = new Map<number, number>();
    for (const t of uplinkTimes) {
      const hour = Math.floor((t * 1000) / HOUR) * HOUR;
      if (hour >= firstHour) expected.set(hour, (expected.get(hour) ?? 0) + 1);
    }
    expect(body.uplinks.filter((b) => b.count > 0).map((b) => [b.hour, b.count])).toEqual([...expected].sort((a, b) => a[0] - b[0]));
    expect(body.uplinks.reduce((sum, b) => sum + b.count, 0)).toBe(3);
  });

  it('shows another account only its own fleet', async () => {
    const body = await overview(bob.auth);
    expect(body.modules).toEqual({ total: 1, seen_24h: 1, never_seen: 0, low_battery: 0 });
    expect(body.alerts).toEqual({ open: 0, lost_contact: 0, latest: [], lost_contact_latest: [] });
    expect(body.deliveries).toEqual({ failed: 0, apps: [] });
    expect(body.uplinks.reduce((sum, b) => sum + b.count, 0)).toBe(1);
  });
});
