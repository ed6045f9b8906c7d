import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { fleetModule, seedFleet } from '../../helpers/fleet.js';

const COUNT = 60;
const now = Date.now();
const fleet = Array.from({ length: COUNT }, (_, k) => fleetModule(k + 1, now));

describe.each(dialects)('module list, names and tags (%s)', (dialect) => {
  let app: TestApp;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    const { id } = await app.context.storage.db.selectFrom('accounts').select('id').where('email', '=', 'alice@example.com').executeTakeFirstOrThrow();
    await seedFleet(app.context.storage.db, id, COUNT, now);
  });
  afterAll(() => app.close());

  const call = async (method: 'GET' | 'POST', url: string, auth = alice.auth, payload?: unknown) => {
    const response = await app.server.inject({ method, url, headers: { authorization: auth }, ...(payload !== undefined && { payload: payload as object }) });
    return { status: response.statusCode, body: response.json() };
  };
  const list = async (query: string, auth = alice.auth) => {
    const { status, body } = await call('GET', `/iot/developers/modules/list.json?${query}`, auth);
    expect(status, JSON.stringify(body)).toBe(200);
    return body as { total: number; offset: number; limit: number; modules: { serial: string; name: string | null; tags: string[]; alerts: number; children: number; battery: string; lastseen: number | null }[] };
  };
  const serials = (page: { modules: { serial: string }[] }) => page.modules.map((m) => m.serial);
  const expected = (keep: (m: (typeof fleet)[number]) => boolean) => fleet.filter(keep).map((m) => m.serial);

  it('answers 401 without credentials and 404 for what is not the caller’s', async () => {
    for (const [method, url] of [
      ['GET', '/iot/developers/modules/list.json'],
      ['GET', '/iot/developers/modules/serials.json'],
      ['POST', '/iot/developers/modules/tags.json'],
      ['POST', '/iot/developers/apps/1/modules/attach-matching.json'],
      ['GET', '/iot/developers/labels.json?sn=F0000001'],
      ['POST', '/iot/developers/labels.json?sn=F0000001'],
    ] as const) {
      expect((await app.server.inject({ method, url })).statusCode, `${method} ${url}`).toBe(401);
    }
    expect((await list('', bob.auth)).total).toBe(0);
    expect((await call('GET', '/iot/developers/labels.json?sn=F0000001', bob.auth)).status).toBe(404);
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000001', bob.auth, { name: 'mine' })).status).toBe(404);
    expect((await call('POST', '/iot/developers/modules/tags.json', bob.auth, { serials: ['F0000001'], add: ['x'] })).status).toBe(404);
    const bobsApp = (await call('POST', '/iot/developers/apps.json', bob.auth, { name: 'bob' })).body as { id: string };
    expect((await call('GET', `/iot/developers/modules/list.json?app=${bobsApp.id}`)).status).toBe(404);
    expect((await call('POST', `/iot/developers/apps/${bobsApp.id}/modules/attach-matching.json?tag=cold`)).status).toBe(404);
  });

  it('pages the owner’s modules, newest seen first and never-seen last, with the total and every column', async () => {
    const first = await list('limit=10');
    expect(first).toMatchObject({ total: COUNT, offset: 0, limit: 10 });
    const bySeen = [...fleet].sort((a, b) => (b.lastseen ?? 0) - (a.lastseen ?? 0) || a.serial.localeCompare(b.serial));
    expect(serials(first)).toEqual(bySeen.slice(0, 10).map((m) => m.serial));
    const second = await list('limit=10&offset=10');
    expect(serials(second)).toEqual(bySeen.slice(10, 20).map((m) => m.serial));
    const last = await list('limit=10&offset=55');
    expect(serials(last)).toEqual(bySeen.slice(55).map((m) => m.serial));
    expect(await list('offset=100')).toMatchObject({ total: COUNT, modules: [] });
    const row = (await list('q=F0000011')).modules[0]!; // i = 17: two children; 17 % 13 ≠ 0
    expect(row).toEqual({
      id: expect.any(String),
      serial: 'F0000011',
      protocol: 'UDM23',
      name: 'Door 17',
      tags: ['building-b', 'cold'],
      lastseen: now - 17 * 60_000,
      battery: 'ON',
      level: 'UNKNOWN',
      network: 'UNKNOWN',
      active: true,
      watched: false,
      msgs: 10,
      losts: 0,
      alerts: 0,
      children: 2,
    });
    expect((await list('q=F000001A')).modules[0]).toMatchObject({ alerts: 1 }); // i = 26
  });

  it('searches serial prefix, name part and whole tag, any case, over children too', async () => {
    expect(serials(await list('q=f000003&sort=serial&order=asc'))).toEqual(expected((m) => m.serial.startsWith('F000003')));
    expect(serials(await list('q=BOILER&sort=serial&order=asc'))).toEqual(expected((m) => m.name?.startsWith('Boiler') ?? false));
    expect(serials(await list('q=cold&sort=serial&order=asc'))).toEqual(expected((m) => m.tags.includes('cold')));
    expect(serials(await list('q=probe 34.2'))).toEqual(['F0000022']);
    expect((await list('q=co')).total).toBe(0); // tags match whole, not in part
    expect((await list('q=100%25')).total).toBe(0); // % is literal
    expect(serials(await list('tag=BUILDING-A&q=pump&sort=serial&order=asc'))).toEqual(
      expected((m) => m.tags.includes('building-a') && (m.name?.startsWith('Pump') ?? false)),
    );
  });

  it('sorts by name, alerts, battery and serial, either way', async () => {
    const named = fleet.filter((m) => m.name !== null).sort((a, b) => a.name!.toLowerCase().localeCompare(b.name!.toLowerCase()) || a.serial.localeCompare(b.serial));
    const byName = await list('sort=name&limit=500');
    expect(serials(byName)).toEqual([...named, ...fleet.filter((m) => m.name === null)].map((m) => m.serial));
    expect(serials(await list('sort=alerts&limit=4'))).toEqual(expected((m) => m.alert).slice(0, 4).sort((a, b) => {
      const seen = (s: string) => fleet.find((m) => m.serial === s)!.lastseen ?? 0;
      return seen(b) - seen(a) || a.localeCompare(b);
    }));
    const byBattery = await list('sort=battery&limit=500');
    expect(byBattery.modules.map((m) => m.battery)).toEqual([...byBattery.modules.map((m) => m.battery)].sort((a, b) => ['OFF', 'UNKNOWN', 'ON'].indexOf(a) - ['OFF', 'UNKNOWN', 'ON'].indexOf(b)));
    expect(byBattery.modules[0]!.battery).toBe('OFF');
    expect(serials(await list('sort=serial&order=desc&limit=3'))).toEqual(['F000003C', 'F000003B', 'F000003A']);
  });

  it('filters by state', async () => {
    expect(serials(await list('state=alerting&sort=serial&order=asc'))).toEqual(expected((m) => m.alert));
    expect(serials(await list('state=low-battery&sort=serial&order=asc'))).toEqual(expected((m) => m.battery === 'OFF'));
    expect(serials(await list('state=never-seen&sort=serial&order=asc'))).toEqual(expected((m) => m.lastseen === null));
    expect((await list('state=seen-24h')).total).toBe(fleet.filter((m) => m.lastseen !== null).length);
    expect((await list('state=silent')).total).toBe(fleet.filter((m) => m.lastseen === null).length);
  });

  it('answers 400 naming the parameter', async () => {
    for (const [query, message] of [
      ['sort=battery_level', /sort must be one of lastseen, alerts, battery, name, serial/],
      ['order=up', /order must be one of asc, desc/],
      ['limit=0', /limit must be an integer from 1 to 500/],
      ['limit=501', /limit must be an integer from 1 to 500/],
      ['offset=-1', /offset must be an integer/],
      ['state=asleep', /state must be one of/],
      ['tag=two words', /tag "two words" must be/],
      ['app=abc', /app must be an integer/],
    ] as const) {
      const { status, body } = await call('GET', `/iot/developers/modules/list.json?${query.replace(' ', '%20')}`);
      expect(status, query).toBe(400);
      expect(body.message, query).toMatch(message);
    }
  });

  it('names, tags and annotates a module and a child; search finds them; 400 and 404 name the problem', async () => {
    const set = await call('POST', '/iot/developers/labels.json?sn=f0000001', alice.auth, { name: '  Cellar pump ', tags: 'Cellar, wet', notes: 'behind the boiler' });
    expect(set).toEqual({ status: 200, body: { serial: 'F0000001', index: 0, name: 'Cellar pump', tags: ['cellar', 'wet'], notes: 'behind the boiler' } });
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000011/2', alice.auth, { tags: ['flood'] })).body).toMatchObject({ serial: 'F0000011/2', tags: ['flood'], name: 'Probe 17.2' });
    const labels = await call('GET', '/iot/developers/labels.json?sn=F0000011');
    expect(labels.body.map((l: { serial: string }) => l.serial)).toEqual(['F0000011', 'F0000011/1', 'F0000011/2']);
    expect(serials(await list('q=cellar'))).toEqual(['F0000001']);
    expect(serials(await list('tag=flood'))).toEqual(['F0000011']);
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000001', alice.auth, { name: null, notes: '' })).body).toMatchObject({ name: null, notes: null, tags: ['cellar', 'wet'] });
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000001', alice.auth, { tags: ['ok', 'not ok'] })).body.message).toMatch(/tag "not ok" must be/);
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000001', alice.auth, { name: 'x'.repeat(101) })).body.message).toMatch(/name must be at most 100/);
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000001', alice.auth, { name: 5 })).body.message).toMatch(/name must be a string/);
    expect((await call('POST', '/iot/developers/labels.json', alice.auth, { name: 'x' })).body.message).toMatch(/sn is required/);
    expect((await call('POST', '/iot/developers/labels.json?sn=F0000011/9', alice.auth, { name: 'x' })).status).toBe(404);
  });

  it('a new registration starts without the previous owner’s labels', async () => {
    await call('POST', '/iot/developers/labels.json?sn=C0FE', alice.auth, { name: 'x' }).then((r) => expect(r.status).toBe(404));
    expect((await call('POST', '/iot/developers/modules.json', alice.auth, [{ serial: 'C0FE', key: '1A2B3C4D' }])).body.registered).toEqual(['C0FE']);
    await call('POST', '/iot/developers/labels.json?sn=C0FE', alice.auth, { name: 'Old name', tags: 'old', notes: 'old notes' });
    const { id } = (await call('GET', '/iot/developers/device.json?sn=C0FE')).body as { id: string };
    expect((await app.server.inject({ method: 'DELETE', url: `/iot/developers/modules.json?id=${id}&sn=C0FE`, headers: { authorization: alice.auth } })).statusCode).toBe(200);
    expect((await call('POST', '/iot/developers/modules.json', bob.auth, [{ serial: 'C0FE', key: '1A2B3C4D' }])).body.registered).toEqual(['C0FE']);
    expect((await call('GET', '/iot/developers/labels.json?sn=C0FE', bob.auth)).body).toEqual([{ serial: 'C0FE', index: 0, name: null, tags: [], notes: null }]);
  });

  it('tags in bulk: listed serials, or every module matching the filter', async () => {
    const listed = await call('POST', '/iot/developers/modules/tags.json', alice.auth, { serials: ['F0000002', 'f0000003'], add: ['pilot'] });
    expect(listed.body).toEqual({ modules: 2, changed: 2 });
    const matching = await call('POST', '/iot/developers/modules/tags.json?state=low-battery', alice.auth, { add: 'replace-battery', remove: 'cold' });
    const low = expected((m) => m.battery === 'OFF');
    expect(matching.body).toEqual({ modules: low.length, changed: low.length });
    expect(serials(await list('tag=replace-battery&sort=serial&order=asc'))).toEqual(low);
    expect((await list('tag=cold&state=low-battery')).total).toBe(0);
    expect((await call('POST', '/iot/developers/modules/tags.json', alice.auth, { serials: ['F0000002'] })).body.message).toMatch(/name at least one tag/);
    expect((await call('POST', '/iot/developers/modules/tags.json', alice.auth, { serials: 'F0000002', add: 'x' })).body.message).toMatch(/serials must be an array/);
  });

  it('attaches every module that matches to an app, and lists by app', async () => {
    const created = (await call('POST', '/iot/developers/apps.json', alice.auth, { name: 'cold rooms' })).body as { id: string };
    const cold = (await list('tag=cold')).total;
    expect(cold).toBeGreaterThan(5);
    expect((await call('POST', `/iot/developers/apps/${created.id}/modules/attach-matching.json?tag=cold`)).body).toEqual({ attached: cold });
    expect((await call('POST', `/iot/developers/apps/${created.id}/modules/attach-matching.json?tag=cold`)).body).toEqual({ attached: 0 });
    expect((await list(`app=${created.id}`)).total).toBe(cold);
    expect((await list(`notapp=${created.id}`)).total).toBe(COUNT - cold);
    const attached = (await call('GET', `/iot/developers/apps/${created.id}/modules.json`)).body as unknown[];
    expect(attached).toHaveLength(cold);
    const all = await call('GET', `/iot/developers/modules/serials.json?app=${created.id}`);
    expect(all.body.total).toBe(cold);
  });
});
