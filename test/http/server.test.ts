import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

describe.each(dialects)('server-wide behaviour (%s)', (dialect) => {
  let app: TestApp;
  let auth: string;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_BODY_LIMIT: '2048' });
    auth = (await createDeveloper(app)).auth;
  });
  afterAll(() => app.close());

  it('answers /healthz with 200 once the database answers', async () => {
    const response = await app.server.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('answers unknown routes with the error shape', async () => {
    const response = await app.server.inject({ method: 'GET', url: '/nope?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'no route for GET /nope' });
  });

  it('refuses malformed JSON with 400 and no stack trace', async () => {
    const response = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/apps.json',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringMatching(/not valid JSON/) });
    expect(response.body).not.toMatch(/at .*\.(js|ts):\d+/);
  });

  it('drops __proto__ keys from JSON bodies instead of polluting prototypes', async () => {
    const response = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/apps.json',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: '{"name": "proto", "__proto__": {"polluted": true}}',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().name).toBe('proto');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses oversize bodies with 413', async () => {
    const response = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/apps.json',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(5000) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().statusCode).toBe(413);
  });

  it('refuses wrong types with 400 naming the parameter', async () => {
    const response = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/apps/abc/modules/attach.json',
      headers: { authorization: auth },
      payload: { serials: [] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/idApp/);
  });

  it('accepts an empty body sent with a JSON content type', async () => {
    const response = await app.server.inject({
      method: 'POST',
      url: '/iot/developers/pacs.csv',
      headers: { authorization: auth, 'content-type': 'application/json' },
      payload: '',
    });
    expect(response.statusCode).toBe(200);
  });

  it('publishes the OpenAPI document and the browsable reference', async () => {
    const document = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/iot/developers/apps.json', '/iot/developers/modules.json', '/security/authentication']));
    const docs = await app.server.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toMatch(/swagger/i);
  });
});
