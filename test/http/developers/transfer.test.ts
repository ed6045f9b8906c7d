import { afterEach, describe, expect, it } from 'vitest';
import { basic, createDeveloper, importCatalog, PASSWORD, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { dialects } from '../../helpers/database.js';
import { keepAlive, tempLow } from '../../helpers/seed.js';
import { eventually } from '../../delivery/fixture.js';
import { startReceiver } from '../../delivery/receiver.js';
import type { Receiver } from '../../delivery/receiver.js';

const BIDIR = '0102030405060708';

/**
 * A module changing hands, end to end through the HTTP API: the first owner's messages, raw
 * messages, children, flags, bidir value, counters, deliveries and device tokens must never reach
 * the second owner, and the module's uplinks must reach no app of the first owner once released.
 */
describe.each(dialects)('a module changing hands (%s)', (dialect) => {
  let app: TestApp;
  let receiver: Receiver;
  afterEach(async () => {
    await app?.close();
    await receiver?.close();
  });

  let time = 1_714_567_890;
  const uplink = (data: string, seqNumber: number, ack = false) =>
    app.server.inject({
      method: 'POST',
      url: '/network/sigfox/uplink',
      headers: { authorization: 'Bearer network-token' },
      payload: { device: 'C0FE', time: (time += 600), data, seqNumber, station: '1A2B', rssi: -120, snr: 10, ack },
    });
  const token = async (key = '1A2B3C4D') => {
    const response = await app.server.inject({ url: `/iot/devices/crc.json?sn=C0FE&key=${key}` });
    expect(response.statusCode).toBe(200);
    return response.body;
  };
  const asDevice = (url: string, deviceToken: string, method: 'GET' | 'POST' = 'GET') =>
    app.server.inject({ method, url, headers: { 'x-snsr-device-key': deviceToken } });
  const developer = (method: 'GET' | 'POST' | 'DELETE', url: string, auth: string, payload?: unknown) =>
    app.server.inject({ method, url, headers: { authorization: auth }, ...(payload !== undefined && { payload: payload as object }) });

  it('gives the new owner an empty module with default flags, and ends the old owner’s tokens and callbacks', async () => {
    receiver = await startReceiver();
    app = await startApp(dialect, { SNSR_CALLBACK_ALLOW_PRIVATE: 'true', SNSR_DELIVERY_BACKOFF_MS: '50' });
    await importCatalog(app);
    const alice = await createDeveloper(app, 'alice@example.com');
    const bob = await createDeveloper(app, 'bob@example.com');
    const aliceId = (await app.context.repositories.accounts.byEmail(alice.email))!.id;
    const bobId = (await app.context.repositories.accounts.byEmail(bob.email))!.id;
    app.context.startWorker({ pollMs: 20 });

    // The first owner: registered, attached to an app with a callback, uplinks from the module and a child, flags set.
    expect((await developer('POST', '/iot/developers/modules.json', alice.auth, [{ serial: 'C0FE', key: '1A2B3C4D' }])).json()).toMatchObject({ registered: ['C0FE'] });
    const aliceApp = await app.context.apps.save(aliceId, { name: 'alice', callbackurl: `${receiver.url}?app=alice` });
    await app.context.apps.attach(aliceId, aliceApp.id, ['C0FE']);
    const aliceToken = await token();
    expect((await uplink(keepAlive(0), 10)).statusCode).toBe(200);
    expect((await uplink(tempLow(1, 2), 11)).json()).toMatchObject({ frame: 'message', device: 'C0FE/2' });
    await receiver.waitFor(2);
    const own = (await developer('GET', '/iot/developers/modules.json', alice.auth)).json()[0];
    for (const [flag, value] of [['watch', 'true'], ['status', 'ALARM'], ['active', 'false'], ['bidirval', BIDIR]]) {
      expect((await asDevice(`/iot/devices/${flag}.json?id=${own.id}&value=${value}`, aliceToken, 'POST')).statusCode).toBe(200);
    }
    expect((await asDevice('/iot/devices/children.json', aliceToken)).json()).toHaveLength(1);
    expect((await asDevice('/iot/devices/msgs/sfx/history.json', aliceToken)).json()).toHaveLength(2);
    expect((await uplink(keepAlive(2), 12, true)).json()).toEqual({ C0FE: { downlinkData: BIDIR } });
    await receiver.waitFor(3);
    expect((await asDevice('/iot/devices/msgs/history.json', aliceToken)).json()).toHaveLength(3);
    expect((await developer('GET', '/iot/developers/device.json?sn=C0FE', alice.auth)).json()).toMatchObject({ bidirval: BIDIR, watched: true, active: false, status: 'ALARM', msgs: 2 });

    await app.context.storage.db
      .insertInto('alerts')
      .values({ account_id: aliceId, module_serial: 'C0FE', device_id: own.id, kind: 'tamper', message: 'opened', raised_at: Date.now() })
      .execute();

    // Released: the old token is refused, and an uplink meanwhile gets neither the old bidir value nor an old app.
    expect((await developer('DELETE', `/iot/developers/modules.json?id=${own.id}&sn=C0FE`, alice.auth)).statusCode).toBe(200);
    const refused = await asDevice('/iot/devices/msgs/history.json', aliceToken);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().message).toMatch(/registered or unregistered/);
    expect((await uplink(keepAlive(3), 13, true)).statusCode).toBe(204);

    // The second owner registers with the printed key and finds the module as new.
    expect((await developer('POST', '/iot/developers/modules.json', bob.auth, [{ serial: 'C0FE', key: '1A2B3C4D' }])).json()).toMatchObject({ registered: ['C0FE'] });
    const bobApp = await app.context.apps.save(bobId, { name: 'bob', callbackurl: `${receiver.url}?app=bob` });
    await app.context.apps.attach(bobId, bobApp.id, ['C0FE']);
    const bobToken = await token();
    expect(bobToken).not.toBe(aliceToken);
    expect((await asDevice('/iot/devices/msgs/history.json', bobToken)).json()).toEqual([]);
    expect((await asDevice('/iot/devices/msgs/recents.json?after=0', bobToken)).json()).toEqual([]);
    expect((await asDevice('/iot/devices/msgs/sfx/history.json', bobToken)).json()).toEqual([]);
    expect((await asDevice('/iot/devices/children.json', bobToken)).json()).toEqual([]);
    const device = (await developer('GET', '/iot/developers/device.json?sn=C0FE', bob.auth)).json();
    expect(device).toMatchObject({ msgs: 0, losts: 0, active: true, watched: false, status: 'UNDEFINED', temp: 'UNKNOWN' });
    // The wire leaves out what the device does not have yet.
    for (const field of ['bidirval', 'firstseen', 'lastseen']) expect(device).not.toHaveProperty(field);
    expect((await asDevice('/iot/devices/msgs/history.json', aliceToken)).statusCode).toBe(401);
    expect(await app.context.storage.db.selectFrom('alerts').selectAll().execute()).toEqual([]);
    // The first owner's child device id no longer names anything.
    expect((await asDevice(`/iot/devices/msgs/history.json?id=${own.id + 1}`, bobToken)).statusCode).toBe(404);

    // The module's next uplink: no old bidir value for the device, one message for the new owner, one callback to the new owner's app only.
    expect((await uplink(keepAlive(4), 14, true)).statusCode).toBe(204);
    const history = (await asDevice('/iot/devices/msgs/history.json', bobToken)).json();
    expect(history).toHaveLength(1);
    await receiver.waitFor(4);
    await eventually(
      () => app.context.storage.db.selectFrom('deliveries').select(['app_id', 'status']).execute(),
      (rows) => rows.length === 1 && rows[0]!.status === 'delivered',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const apps = receiver.received.map((request) => new URL(request.path, 'http://x').searchParams.get('app'));
    expect(apps).toEqual(['alice', 'alice', 'alice', 'bob']);

    // The first owner sees nothing of the module through the developer API either.
    expect((await developer('GET', '/iot/developers/modules.json', alice.auth)).json()).toEqual([]);
    expect((await developer('GET', '/iot/developers/device.json?sn=C0FE', alice.auth)).statusCode).toBe(404);
    expect((await app.server.inject({ url: '/iot/devices/msgs/history.json?sn=C0FE', headers: { authorization: basic(alice.email, PASSWORD) } })).statusCode).toBe(404);
    expect((await developer('GET', `/iot/developers/apps/${aliceApp.id}/modules.json`, alice.auth)).json()).toEqual([]);
  });

  it('keeps a registration’s data when the same owner reads it, and a token minted while unregistered stops at registration', async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const alice = await createDeveloper(app, 'alice@example.com');
    const unowned = await token();
    expect((await uplink(keepAlive(0), 1)).statusCode).toBe(200);
    expect((await asDevice('/iot/devices/msgs/history.json', unowned)).json()).toHaveLength(1);

    expect((await developer('POST', '/iot/developers/modules.json', alice.auth, [{ serial: 'C0FE', key: '0123456789abcdef' }])).json()).toMatchObject({ registered: ['C0FE'] });
    expect((await asDevice('/iot/devices/msgs/history.json', unowned)).statusCode).toBe(401);
    const owned = await token();
    expect((await asDevice('/iot/devices/msgs/history.json', owned)).json()).toEqual([]);
    expect((await uplink(keepAlive(1), 2)).statusCode).toBe(200);
    expect((await asDevice('/iot/devices/msgs/history.json', owned)).json()).toHaveLength(1);
    expect((await asDevice('/iot/devices/pacs.csv', unowned, 'POST')).statusCode).toBe(401);
    expect((await asDevice('/iot/devices/pacs.csv', owned, 'POST')).body).toContain('0123456789ABCDEF');
  });
});
