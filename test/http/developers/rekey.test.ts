import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { dialects } from '../../helpers/database.js';

describe.each(dialects)('device key rotation: POST /iot/developers/modules/key.json (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
  });
  afterAll(() => app.close());

  const rekey = (auth: string | undefined, query: string, payload?: object) =>
    app.server.inject({ method: 'POST', url: `/iot/developers/modules/key.json${query}`, headers: auth ? { authorization: auth } : {}, ...(payload && { payload }) });
  const crc = (key: string) => app.server.inject({ url: `/iot/devices/crc.json?sn=C0FE&key=${key}` });
  const history = (token: string) => app.server.inject({ url: '/iot/devices/msgs/history.json', headers: { 'x-snsr-device-key': token } });

  it('answers 401 without credentials and 404 for a module the caller does not hold', async () => {
    expect((await rekey(undefined, '?sn=C0FE')).statusCode).toBe(401);
    const foreign = await rekey(bob.auth, '?sn=C0FE&key=00000000');
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('module C0FE not found');
    expect((await rekey(alice.auth, '?sn=BEEF')).statusCode).toBe(404);
    expect((await rekey(alice.auth, '?sn=FFFF')).statusCode).toBe(404);
    // Nothing changed for the owner's key.
    expect((await crc('1A2B3C4D')).statusCode).toBe(200);
  });

  it('answers 400 naming the problem for a missing serial or a key that is not 8 hex digits', async () => {
    const missing = await rekey(alice.auth, '');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toMatch(/sn is required/);
    for (const key of ['123', 'XYZXYZXY', '0123456789ABCDEF']) {
      const bad = await rekey(alice.auth, `?sn=C0FE&key=${key}`);
      expect(bad.statusCode, key).toBe(400);
      expect(bad.json().message).toMatch(/key must be 8 hex digits/);
    }
  });

  it('sets the given key: the printed key, the PAC and every token minted before stop working', async () => {
    const byKey = (await crc('1a2b3c4d')).body;
    const byPac = (await crc('0123456789ABCDEF')).body;
    expect((await history(byKey)).statusCode).toBe(200);

    const response = await rekey(alice.auth, '?sn=c0fe&key=a1b2c3d4');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ serial: 'C0FE', key: 'A1B2C3D4' });

    for (const token of [byKey, byPac]) {
      const refused = await history(token);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().message).toMatch(/re-keyed/);
    }
    expect((await crc('1A2B3C4D')).statusCode).toBe(401);
    expect((await crc('0123456789ABCDEF')).statusCode).toBe(401);
    const fresh = await crc('a1b2c3d4');
    expect(fresh.statusCode).toBe(200);
    expect((await history(fresh.body)).statusCode).toBe(200);
  });

  it('generates a key when none is sent (JSON body, serial spelled out) and records module.rekey without the key', async () => {
    const response = await rekey(alice.auth, '', { serial: 'C0FE' });
    expect(response.statusCode).toBe(200);
    const { key } = response.json();
    expect(key).toMatch(/^[0-9A-F]{8}$/);
    expect(key).not.toBe('A1B2C3D4');
    expect((await crc('A1B2C3D4')).statusCode).toBe(401);
    expect((await crc(key)).statusCode).toBe(200);

    const audit = (await app.server.inject({ url: '/iot/developers/audit.json', headers: { authorization: alice.auth } })).json();
    const entries = audit.filter((entry: { action: string }) => entry.action === 'module.rekey');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ action: 'module.rekey', credential: 'password', detail: { sn: 'C0FE' } });
    expect(JSON.stringify(entries)).not.toContain(key);
    expect(JSON.stringify(entries)).not.toContain('A1B2C3D4');
  });

  it('puts the printed key back in force when the module is released, for its next owner', async () => {
    const { id } = (await app.server.inject({ url: '/iot/developers/modules.json', headers: { authorization: alice.auth } })).json()[0];
    expect((await app.server.inject({ method: 'DELETE', url: `/iot/developers/modules.json?id=${id}&sn=C0FE`, headers: { authorization: alice.auth } })).statusCode).toBe(200);
    const registered = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/modules.json',
      headers: { authorization: bob.auth },
      payload: [{ serial: 'C0FE', key: '1A2B3C4D' }],
    });
    expect(registered.json()).toMatchObject({ registered: ['C0FE'] });
    expect((await crc('1A2B3C4D')).statusCode).toBe(200);
    // PACs are the current owner's only.
    const pacs = (auth: string) => app.server.inject({ method: 'POST', url: '/iot/developers/pacs.csv', headers: { authorization: auth } });
    expect((await pacs(alice.auth)).body).not.toContain('C0FE');
    expect((await pacs(bob.auth)).body).toContain('C0FE; 0123456789ABCDEF');
  });
});
