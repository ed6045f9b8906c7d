import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe.each(dialects)('hostile parameters and bodies (%s)', (dialect) => {
  let app: TestApp;
  let auth: string;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_MAX_BATCH: '5' });
    auth = (await createDeveloper(app)).auth;
  });
  afterAll(() => app.close());

  const post = (url: string, payload?: string, contentType = 'application/json') =>
    app.server.inject({ method: 'POST', url, headers: { authorization: auth, 'content-type': contentType }, ...(payload !== undefined && { payload }) });

  it.each(['null', '5', '[1,2]', '"text"', 'true'])('refuses apps.json?app=%s with 400: it names no app', async (value) => {
    const response = await post(`/iot/developers/apps.json?app=${encodeURIComponent(value)}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'app must be a JSON object' });
  });

  it('refuses bodies nested deeper than 32 levels with 400, and takes 32', async () => {
    for (const [payload, contentType] of [
      [deepArray(33), 'application/json'],
      [deepObject(100_000), 'application/json'],
      [`{"app":${deepObject(40)}}`, 'application/x-www-form-urlencoded'],
    ] as const) {
      const response = await post('/iot/developers/apps.json', payload, contentType);
      expect(response.statusCode).toBe(400);
      expect(response.json().message).toBe('body nests objects and arrays deeper than 32 levels');
    }
    const fine = await post('/iot/developers/apps.json', `{"name":"n","description":"${'[{'.repeat(50)}"}`);
    expect(fine.statusCode).toBe(200);
    const atLimit = await post('/iot/developers/apps.json', `{"name":"x","extra":${deepArray(31)}}`);
    expect(atLimit.statusCode).toBe(200);
  });

  it('refuses deeply nested JSON text inside a parameter', async () => {
    const response = await post(`/iot/developers/apps.json?app=${encodeURIComponent(deepObject(40))}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('app nests objects and arrays deeper than 32 levels');
    const modules = await post('/iot/developers/modules.json', `modules=${encodeURIComponent(deepArray(40))}`, 'application/x-www-form-urlencoded');
    expect(modules.statusCode).toBe(400);
    expect(modules.json().message).toBe('modules nests objects and arrays deeper than 32 levels');
  });

  it('refuses registrations, attaches and detaches beyond the batch maximum with 413', async () => {
    const six = Array.from({ length: 6 }, (_, i) => `S${i}`);
    const register = await post('/iot/developers/modules.json', JSON.stringify(six.map((serial) => ({ serial, key: '00000000' }))));
    expect(register.statusCode).toBe(413);
    expect(register.json()).toEqual({ statusCode: 413, error: 'Payload Too Large', message: 'modules holds 6 entries; one request takes at most 5: split it' });
    const created = await post('/iot/developers/apps.json', '{"name":"batch"}');
    for (const action of ['attach', 'detach']) {
      const response = await post(`/iot/developers/apps/${created.json().id}/modules/${action}.json`, JSON.stringify({ serials: six }));
      expect(response.statusCode).toBe(413);
      expect(response.json().message).toBe('serials holds 6 entries; one request takes at most 5: split it');
    }
    const five = await post('/iot/developers/modules.json', JSON.stringify(six.slice(0, 5).map((serial) => ({ serial, key: '00000000' }))));
    expect(five.statusCode).toBe(200);
  });

  it('refuses over-long strings with 400 naming the field', async () => {
    const cases: [string, string, RegExp][] = [
      ['/iot/developers/apps.json', JSON.stringify({ name: 'n'.repeat(201) }), /^name must be at most 200 characters$/],
      ['/iot/developers/apps.json', JSON.stringify({ name: 'n', description: 'd'.repeat(2001) }), /^description must be at most 2000 characters$/],
      ['/iot/developers/apps.json', JSON.stringify({ name: 'n', callbackurl: `https://example.com/${'a'.repeat(2048)}` }), /^callbackurl must be at most 2048 characters$/],
      ['/iot/developers/modules.json', JSON.stringify([{ serial: 'S'.repeat(65), key: '0' }]), /^modules\[0\]\.serial must be a non-empty string of at most 64 characters$/],
    ];
    for (const [url, payload, message] of cases) {
      const response = await post(url, payload);
      expect(response.statusCode, payload.slice(0, 40)).toBe(400);
      expect(response.json().message).toMatch(message);
    }
  });
});

describe('paths the router cannot take', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp('sqlite');
  });
  afterAll(() => app.close());

  it.each([
    ['/iot/developers/apps/%/modules.json', 400, 'the path is not valid percent-encoding'],
    ['/iot/devices/%E0%A4%A', 400, 'the path is not valid percent-encoding'],
    [`/iot/developers/apps/${'%5B'.repeat(250)}/modules/attach.json`, 414, 'a path parameter is longer than 200 characters'],
  ])('%s is a %i with the usual error body', async (url, status, message) => {
    const response = await app.server.inject({ method: 'POST', url });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ statusCode: status, error: expect.any(String), message });
  });
});
