import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogCsv, generatedModules } from '../../../src/simulator/fleet.js';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

// Registrations are read and claimed in chunks of 200: a request of 450 spans three, with the
// state table's cases on both sides of each boundary.
describe.each(dialects)('registering a fleet in one request (%s)', (dialect) => {
  let app: TestApp;
  let keys: Map<string, string>;
  let serials: string[];
  beforeAll(async () => {
    app = await startApp(dialect);
    const csv = catalogCsv(generatedModules(450));
    await app.context.catalog.import(csv);
    const rows = csv.trim().split('\n').slice(1).map((line) => line.split(';'));
    keys = new Map(rows.map(([serial, key]) => [serial!, key!]));
    serials = rows.map(([serial]) => serial!);
  });
  afterAll(() => app.close());

  const register = async (auth: string, body: { serial: string; key: string }[]) => {
    const response = await app.server.inject({ method: 'POST', url: '/iot/developers/modules.json', headers: { authorization: auth }, payload: body });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { registered: string[]; not_found: string[]; already_registered: string[]; invalid_key: string[] };
  };

  it('answers every entry, in the order sent, each serial claimed once', async () => {
    const bob = await createDeveloper(app, 'bob@example.com');
    const bobs = [serials[5]!, serials[250]!];
    expect((await register(bob.auth, bobs.map((serial) => ({ serial, key: keys.get(serial)! })))).registered).toEqual(bobs);

    const alice = await createDeveloper(app, 'alice@example.com');
    const body = serials.map((serial) => ({ serial: serial.toLowerCase(), key: keys.get(serial)! }));
    body.splice(10, 0, { serial: serials[3]!, key: keys.get(serials[3]!)! }); // again, same chunk
    body.splice(300, 0, { serial: serials[20]!, key: keys.get(serials[20]!)! }); // again, a later chunk
    body.splice(199, 0, { serial: serials[400]!, key: '00000000' }); // wrong key, before the right one
    body.splice(201, 0, { serial: 'FFFFFFFF', key: '00000000' });
    const result = await register(alice.auth, body);

    const mine = serials.filter((serial) => !bobs.includes(serial));
    expect(result.registered).toEqual(mine);
    // Bob's first, then each repeat where it stands.
    expect(result.already_registered).toEqual([serials[5], serials[3], serials[250], serials[20]]);
    expect(result.invalid_key).toEqual([serials[400]]);
    expect(result.not_found).toEqual(['FFFFFFFF']);
    const listed = await app.server.inject({ method: 'GET', url: '/iot/developers/modules.json', headers: { authorization: alice.auth } });
    expect((listed.json() as { serial: string }[]).map((m) => m.serial).sort()).toEqual([...mine].sort());
  });
});
