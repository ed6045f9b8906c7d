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
    app = await startApp(dialect);
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
});
