import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { keepAlive, seedUplink, tempLow } from '../../helpers/seed.js';

const T0 = Date.UTC(2017, 3, 9, 15, 4, 5);

/**
 * The request shapes of the public clients (spec/compatibility.md) that the device API must take:
 * a `sn` that contradicts the token, the token in `Authorization: Basic`, flag values in any case,
 * an empty bidir value, and the first portal's `/mcs/devices/*` paths.
 */
describe.each(dialects)('legacy device requests (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  let moduleId: number;
  let childId: number;
  let beefId: number;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    moduleId = (await seedUplink(app, { module: 'C0FE', at: T0, frame: keepAlive(0), seq: 0 })).deviceId;
    childId = (await seedUplink(app, { module: 'C0FE', at: T0 + 60_000, frame: tempLow(1, 2), seq: 1 })).deviceId;
    beefId = (await seedUplink(app, { module: 'BEEF', at: T0, frame: '1300011C', protocol: 'UDM22', seq: 0 })).deviceId;
    token = (await app.server.inject({ url: '/mcs/devices/crc.json?sn=C0FE&key=1a2b3c4d' })).body;
  });
  afterAll(() => app.close());

  const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = { 'x-snsr-device-key': token }) =>
    app.server.inject({ method, url, headers });
  const devices = (url: string, headers?: Record<string, string>) => call('GET', url, headers);
  const state = async (id: number) => (await app.context.repositories.devices.byId(id))!;

  it('takes the module from the token and ignores a sn that contradicts it (sn=2002, another module)', async () => {
    const plain = (await devices('/iot/devices/msgs/history.json')).json();
    expect(plain).toHaveLength(2);
    for (const sn of ['2002', 'BEEF', 'beef/1']) {
      expect((await devices(`/iot/devices/msgs/history.json?sn=${sn}`)).json(), sn).toEqual(plain);
      expect((await devices(`/iot/devices/msgs/recents.json?sn=${sn}&after=0`)).json(), sn).toEqual(plain);
      expect((await devices(`/iot/devices/msgs/sfx/history.json?sn=${sn}`)).json(), sn).toHaveLength(2);
      expect((await devices(`/iot/devices/children.json?sn=${sn}`)).json().map((d: { serial: string }) => d.serial), sn).toEqual(['C0FE/2']);
    }
    // The id still selects the module or one of its children...
    const child = (await devices(`/iot/devices/msgs/history.json?sn=2002&id=${childId}`)).json();
    expect(child.map((m: { device: string }) => m.device)).toEqual(['C0FE/2']);
    expect((await call('POST', `/iot/devices/status.json?id=${moduleId}&sn=2002&value=ALARM`)).statusCode).toBe(200);
    expect((await state(moduleId)).status).toBe('ALARM');
    // ...and an id outside the module is a 404, whatever sn says.
    for (const sn of ['2002', 'BEEF']) {
      expect((await devices(`/iot/devices/msgs/history.json?sn=${sn}&id=${beefId}`)).statusCode).toBe(404);
      expect((await call('POST', `/iot/devices/status.json?id=${beefId}&sn=${sn}&value=ALARM`)).statusCode).toBe(404);
    }
    expect((await state(beefId)).status).toBe('UNDEFINED');
  });

  it('accepts the device token as Authorization: Basic <token> and Basic : <token>', async () => {
    for (const authorization of [`Basic ${token}`, `Basic : ${token}`, `basic :${token}`]) {
      const response = await devices('/iot/devices/msgs/history.json?sn=2002', { authorization });
      expect(response.statusCode, authorization).toBe(200);
      expect(response.json(), authorization).toHaveLength(2);
      expect((await call('POST', `/iot/devices/watch.json?id=${childId}&value=1`, { authorization })).statusCode).toBe(200);
    }
    expect((await state(childId)).watched).toBe(true);
    // Beside X-Snsr-Device-Key, the header wins.
    expect((await devices('/iot/devices/msgs/history.json', { authorization: 'Basic : bm90IGEgdG9rZW4=', 'x-snsr-device-key': token })).statusCode).toBe(200);
    // A Basic : value that is no token is a 401 about the device token; developer credentials still work.
    const forged = await devices('/iot/devices/msgs/history.json', { authorization: 'Basic : bm90IGEgdG9rZW4=' });
    expect(forged.statusCode).toBe(401);
    expect(forged.json().message).toMatch(/invalid device token/);
    expect((await devices('/iot/devices/msgs/history.json?sn=C0FE', { authorization: alice.auth })).json()).toHaveLength(2);
    expect((await devices('/iot/devices/msgs/history.json?sn=C0FE', { authorization: `Basic ${alice.token}` })).statusCode).toBe(200);
  });

  it('takes flag and status values in any case, and an empty bidir value clears it', async () => {
    const post = (flag: string, value: string) => call('POST', `/iot/devices/${flag}.json?id=${childId}&value=${value}`);
    expect((await post('status', 'in_Service')).statusCode).toBe(200);
    expect((await post('active', 'FALSE')).statusCode).toBe(200);
    expect((await post('watch', 'True')).statusCode).toBe(200);
    expect((await post('bidirval', '00aabbccddeeff11')).statusCode).toBe(200);
    expect(await state(childId)).toMatchObject({ status: 'IN_SERVICE', active: false, watched: true, bidirval: '00AABBCCDDEEFF11' });
    expect((await post('bidirval', '')).statusCode).toBe(200);
    expect((await state(childId)).bidirval).toBeNull();
    // The same in a JSON body and a form body.
    for (const [type, payload] of [['application/json', `{"id":${childId},"value":""}`], ['application/x-www-form-urlencoded', `id=${childId}&value=`]]) {
      await post('bidirval', '1122334455667788');
      const cleared = await app.server.inject({ method: 'POST', url: '/iot/devices/bidirval.json', headers: { 'x-snsr-device-key': token, 'content-type': type }, payload });
      expect(cleared.statusCode, type).toBe(200);
      expect((await state(childId)).bidirval, type).toBeNull();
    }
  });

  it('serves every device operation under /mcs/devices, and /mcs/devices/msgs.json like recents', async () => {
    const recents = (await devices('/iot/devices/msgs/recents.json?after=0')).json();
    expect((await devices('/mcs/devices/msgs.json?after=0')).json()).toEqual(recents);
    expect((await devices(`/mcs/devices/msgs.json?after=${T0}`)).json()).toEqual(recents.slice(0, 1));
    expect((await devices('/mcs/devices/msgs/history.json?sn=2002')).json()).toEqual((await devices('/iot/devices/msgs/history.json')).json());
    expect((await devices('/mcs/devices/msgs/recents.json')).json()).toEqual(recents);
    expect((await devices('/mcs/devices/msgs/sfx/history.json')).json()).toEqual((await devices('/iot/devices/msgs/sfx/history.json')).json());
    expect((await devices('/mcs/devices/children.json')).json()).toHaveLength(1);
    expect((await call('POST', '/mcs/devices/pacs.csv')).body).toBe('SERIAL; PAC\nC0FE; 0123456789ABCDEF\n');
    expect((await call('POST', `/mcs/devices/status.json?id=${childId}&value=mcs`)).statusCode).toBe(200);
    expect((await state(childId)).status).toBe('MCS');
    expect((await devices('/mcs/devices/msgs.json')).statusCode).toBe(200);
    expect((await devices('/mcs/devices/msgs.json', {})).statusCode).toBe(401);
    expect((await devices('/mcs/devices/msgs.json', { authorization: `Basic ${token}` })).statusCode).toBe(200);
    expect((await call('POST', '/mcs/devices/clear.json')).statusCode).toBe(200);
    expect((await devices('/iot/devices/msgs/history.json')).json()).toEqual([]);
  });
});
