import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

// PostgreSQL stores no NUL (U+0000) in text: a value holding one must be refused as bad input, on
// both databases alike, before it reaches a statement.
describe.each(dialects)('NUL characters in parameters (%s)', (dialect) => {
  let app: TestApp;
  let auth: string;
  beforeAll(async () => {
    app = await startApp(dialect);
    auth = (await createDeveloper(app)).auth;
    await importCatalog(app);
  });
  afterAll(() => app.close());

  it.each([
    ['POST', '/iot/devices/bidirval.json?sn=%00', 'sn'],
    ['GET', '/iot/devices/msgs/history.json?sn=C0%00FE', 'sn'],
    ['GET', '/iot/developers/alerts.json?sn=%00', 'sn'],
    ['GET', '/iot/devices/crc.json?sn=C0FE&key=%001A2B3C4', 'key'],
    ['GET', '/iot/developers/apps/1%00/modules.json', 'idApp'],
  ])('answers %s %s with a 400 naming the parameter', async (method, url, name) => {
    const answer = await app.server.inject({ method: method as 'GET' | 'POST', url, headers: { authorization: auth } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ statusCode: 400, message: expect.stringContaining(name) });
  });

  it('answers a NUL in a JSON or form body with a 400 naming the parameter, and stores nothing', async () => {
    const uplink = { device: 'C0FE', time: 1_800_000_000, data: '0203', seqNumber: 1, station: '1A\u00002B' };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const requests = [
      ['/iot/devices/bidirval.json', { authorization: auth }, { sn: '\u0000', id: 1 }, 'sn'],
      ['/network/sigfox/uplink', { authorization: 'Bearer network-token' }, uplink, 'station'],
      ['/iot/developers/apps.json', { authorization: auth, ...form }, 'name=fuzz%00app', 'name'],
    ] as const;
    for (const [url, headers, payload, name] of requests) {
      const answer = await app.server.inject({ method: 'POST', url, headers, payload });
      expect(answer.statusCode).toBe(400);
      expect(answer.json().message).toBe(`body parameter ${name} must not contain a NUL character (U+0000)`);
    }
    expect(await app.context.storage.db.selectFrom('raw_messages').select('id').where('time_s', '=', uplink.time).execute()).toEqual([]);
  });
});
