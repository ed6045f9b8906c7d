import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { keepAlive, seedUplink } from '../../helpers/seed.js';
import type { Device } from '../../../src/domain/types.js';

const T0 = Date.UTC(2017, 3, 9, 15, 4, 5);
const FLAGS = ['status', 'active', 'watch', 'bidirval'] as const;
const GOOD = { status: 'ALARM', active: 'false', watch: 'true', bidirval: '0011223344556677' };

describe.each(dialects)('device flags: status, active, watch, bidirval (%s)', (dialect) => {
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
    moduleId = (await seedUplink(app, { module: 'C0FE', at: T0, frame: keepAlive(0) })).deviceId;
    childId = (await seedUplink(app, { module: 'C0FE', at: T0 + 60_000, frame: keepAlive(1, 2) })).deviceId;
    beefId = (await app.context.repositories.devices.bySerial('BEEF'))!.id;
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  beforeEach(async () => {
    await app.context.storage.db.updateTable('devices').set({ active: 1, watched: 0, status: 'UNDEFINED', bidirval: null }).execute();
  });
  afterAll(() => app.close());

  /** As old clients send it: everything in the query string, no body, no content type. */
  const post = (flag: string, query: string, headers: Record<string, string> = { 'x-snsr-device-key': token }) =>
    app.server.inject({ method: 'POST', url: `/iot/devices/${flag}.json?${query}`, headers });
  const device = async (id: number): Promise<Device> => (await app.context.repositories.devices.byId(id))!;

  it('answers 404 for a device outside the module, or sn naming another device, and changes nothing', async () => {
    for (const flag of FLAGS) {
      for (const query of [`id=${beefId}`, `id=${beefId}&sn=BEEF`, 'id=999999', `id=${childId}&sn=C0FE/1`]) {
        const response = await post(flag, `${query}&value=${GOOD[flag]}`);
        expect(response.statusCode, `${flag} ${query}`).toBe(404);
        expect(response.json()).toMatchObject({ statusCode: 404, error: 'Not Found', message: expect.stringMatching(/^device \d+/) });
      }
    }
    expect(await device(beefId)).toMatchObject({ active: true, watched: false, status: 'UNDEFINED', bidirval: null });
  });

  it('answers 400 naming id or value when missing', async () => {
    for (const flag of FLAGS) {
      const noId = await post(flag, `value=${GOOD[flag]}`);
      expect(noId.statusCode).toBe(400);
      expect(noId.json().message).toBe('id is required: the device id');
      const noValue = await post(flag, `id=${childId}`);
      expect(noValue.statusCode).toBe(400);
      expect(noValue.json().message).toBe('value is required');
      expect((await post(flag, `id=child&value=${GOOD[flag]}`)).json().message).toMatch(/^id must be an integer/);
    }
  });

  it.each([
    ['active', ['yes', 'on', '2', 'truee', '']],
    ['watch', ['no', 'off', '-1', '']],
    ['status', ['1ALARM', 'AL-ARM', 'AL ARM', 'A'.repeat(33)]],
    ['bidirval', ['0011', '00112233445566778', 'GG11223344556677', '0x11223344556677']],
  ] as const)('answers 400 naming the bad %s value, and changes nothing', async (flag, values) => {
    for (const value of values) {
      const response = await post(flag, `id=${childId}&value=${encodeURIComponent(value)}`);
      expect(response.statusCode, value).toBe(400);
      expect(response.json().message, value).toMatch(new RegExp(`^value must .* got ${JSON.stringify(JSON.stringify(value)).slice(1, -1)}$`));
    }
    expect(await device(childId)).toMatchObject({ active: true, watched: false, status: 'UNDEFINED', bidirval: null });
  });

  it('sets active and watch from true, false, 1 or 0 in any case', async () => {
    for (const [value, expected] of [['false', false], ['TRUE', true], ['0', false], ['1', true], ['False', false]] as const) {
      expect((await post('active', `id=${childId}&sn=C0FE/2&value=${value}`)).statusCode).toBe(200);
      expect((await device(childId)).active, value).toBe(expected);
      const watch = await post('watch', `id=${childId}&value=${value}`);
      expect(watch.statusCode).toBe(200);
      expect(watch.body).toBe('');
      expect((await device(childId)).watched, value).toBe(expected);
    }
    expect((await device(moduleId)).active).toBe(true);
  });

  it('sets status to an identifier, as the Android client sends it (id and value only), and resets it with an empty value', async () => {
    expect((await post('status', `id=${childId}&value=LOW_BATTERY_2`)).statusCode).toBe(200);
    expect((await device(childId)).status).toBe('LOW_BATTERY_2');
    expect((await post('status', `id=${moduleId}&sn=c0fe&value=A`)).statusCode).toBe(200);
    expect((await device(moduleId)).status).toBe('A');
    expect((await post('status', `id=${childId}&value=`)).statusCode).toBe(200);
    expect((await device(childId)).status).toBe('UNDEFINED');
  });

  it('sets bidirval as upper-case hex and clears it with an empty value; children.json shows it', async () => {
    expect((await post('bidirval', `id=${moduleId}&sn=C0FE&value=00a1b2c3d4e5f6ff`)).statusCode).toBe(200);
    expect((await device(moduleId)).bidirval).toBe('00A1B2C3D4E5F6FF');
    expect((await post('bidirval', `id=${childId}&value=FFFFFFFFFFFFFFFF`)).statusCode).toBe(200);
    const children = (await app.server.inject({ method: 'GET', url: '/iot/devices/children.json', headers: { 'x-snsr-device-key': token } })).json();
    expect(children).toEqual([expect.objectContaining({ serial: 'C0FE/2', bidirval: 'FFFFFFFFFFFFFFFF' })]);
    expect((await post('bidirval', `id=${childId}&value=`)).statusCode).toBe(200);
    expect((await device(childId)).bidirval).toBeNull();
    const cleared = (await app.server.inject({ method: 'GET', url: '/iot/devices/children.json', headers: { 'x-snsr-device-key': token } })).json();
    expect(cleared[0]).not.toHaveProperty('bidirval');
    const owner = await app.server.inject({ method: 'GET', url: '/iot/developers/device.json?sn=C0FE', headers: { authorization: alice.auth } });
    expect(owner.json().bidirval).toBe('00A1B2C3D4E5F6FF');
  });

  it('reads id, sn and value from a JSON or form body too, the query string winning', async () => {
    const json = await app.server.inject({
      method: 'POST',
      url: '/iot/devices/active.json',
      headers: { 'x-snsr-device-key': token, 'content-type': 'application/json' },
      payload: JSON.stringify({ id: childId, sn: 'C0FE/2', value: false }),
    });
    expect(json.statusCode).toBe(200);
    expect((await device(childId)).active).toBe(false);
    const form = await app.server.inject({
      method: 'POST',
      url: `/iot/devices/status.json?value=QUERY`,
      headers: { 'x-snsr-device-key': token, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `id=${childId}&value=FORM`,
    });
    expect(form.statusCode).toBe(200);
    expect((await device(childId)).status).toBe('QUERY');
  });

  it('sets flags with the owner’s developer credentials, sn naming the module or the device', async () => {
    const auth = { authorization: alice.auth };
    expect((await post('watch', `id=${childId}&sn=C0FE/2&value=1`, auth)).statusCode).toBe(200);
    expect((await post('status', `id=${moduleId}&sn=C0FE&value=SERVICE`, auth)).statusCode).toBe(200);
    expect(await device(childId)).toMatchObject({ watched: true });
    expect(await device(moduleId)).toMatchObject({ status: 'SERVICE' });
    expect((await post('watch', `id=${beefId}&sn=BEEF&value=1`, auth)).statusCode).toBe(404);
    expect((await post('watch', `id=${beefId}&sn=C0FE&value=1`, auth)).statusCode).toBe(404);
    expect((await post('status', `id=${childId}&value=X`, auth)).statusCode).toBe(400);
  });
});
