import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deviceToken } from '../../../src/domain/credentials.js';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { seedUplink, tempLow } from '../../helpers/seed.js';

const T0 = Date.UTC(2021, 5, 1, 8, 0, 0);

/** History and recents check a device token's module in the statement that reads the page. */
describe.each(dialects)('history and recents with a device token: the module checked by the read (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    await createDeveloper(app, 'alice@example.com');
    await createDeveloper(app, 'bob@example.com');
  });
  afterAll(() => app.close());

  const token = async () => (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  const get = (url: string, key: string) => app.server.inject({ method: 'GET', url, headers: { 'x-snsr-device-key': key } });
  const PAGES = [
    '/iot/devices/msgs/history.json',
    '/iot/devices/msgs/recents.json',
    '/iot/devices/msgs/history.json?sn=2002',
    '/iot/devices/msgs/history.json?sn=C0FE',
    '/iot/devices/msgs/history.json?sn=C0FE/1',
    '/iot/devices/msgs/history.json?amount=abc',
    '/iot/devices/msgs/recents.json?after=0',
    '/mcs/devices/msgs.json',
    '/mcs/devices/msgs/history.json?until=not-a-time',
  ];

  it('shows a token of the previous registration nothing once the module changed hands, whatever the parameters, and the new one only its own messages', async () => {
    await app.context.repositories.modules.register(['C0FE'], 1);
    await seedUplink(app, { module: 'C0FE', at: T0, frame: tempLow(0, 0) });
    await seedUplink(app, { module: 'C0FE', at: T0 + 1000, frame: tempLow(1, 1) });
    const alices = await token();
    expect((await get('/iot/devices/msgs/history.json', alices)).json()).toHaveLength(2);

    await app.context.repositories.modules.unregister('C0FE', 1);
    await app.context.repositories.modules.register(['C0FE'], 2);
    await seedUplink(app, { module: 'C0FE', at: T0 + 60_000, frame: tempLow(2, 0) });
    await seedUplink(app, { module: 'C0FE', at: T0 + 61_000, frame: tempLow(3, 1) });
    for (const url of PAGES) {
      const refused = await get(url, alices);
      expect(refused.statusCode, url).toBe(401);
      expect(refused.json().message, url).toBe('device token of C0FE was issued before the module was last registered or unregistered: get a new one');
    }
    // The 400 still comes for the right token, and the new registration sees its own messages only.
    const bobs = await token();
    expect((await get('/iot/devices/msgs/history.json?amount=abc', bobs)).statusCode).toBe(400);
    const page = (await get('/iot/devices/msgs/history.json', bobs)).json() as { when: number; device: string }[];
    expect(page.map((message) => [message.when, message.device])).toEqual([
      [T0 + 61_000, 'C0FE/1'],
      [T0 + 60_000, 'C0FE'],
    ]);
    expect((await get('/iot/devices/msgs/history.json?sn=C0FE/1', bobs)).json()).toHaveLength(1);
  });

  it('refuses a correctly signed token of a serial the catalog does not hold', async () => {
    const stray = deviceToken('test-secret', 'FFFF', 0, 'FFFFFFFF:0000000000000000');
    for (const url of PAGES) {
      const refused = await get(url, stray);
      expect(refused.statusCode, url).toBe(401);
      expect(refused.json().message, url).toBe('device token of FFFF names no module: get a new one');
    }
  });

  it('reads the whole module’s page and its module in one statement, without loading the module first', async () => {
    const key = await token();
    const lookups = vi.spyOn(app.context.repositories.modules, 'bySerial');
    const reads = vi.spyOn(app.context.repositories.messagePages, 'moduleAndPage');
    try {
      for (const url of ['/iot/devices/msgs/history.json', '/iot/devices/msgs/recents.json?amount=5', '/iot/devices/msgs/history.json?sn=2002']) {
        expect((await get(url, key)).statusCode, url).toBe(200);
      }
      expect(reads).toHaveBeenCalledTimes(3);
      expect(lookups).not.toHaveBeenCalled();
      // A child named: its device is looked up within the module, loaded as before.
      expect((await get('/iot/devices/msgs/history.json?sn=C0FE/1', key)).statusCode).toBe(200);
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
      reads.mockRestore();
    }
  });
});
