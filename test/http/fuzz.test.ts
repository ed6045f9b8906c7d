import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';

interface Operation {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  params: string[];
}

/** Every operation of the OpenAPI document, with the names of its parameters. */
function operations(spec: { paths: Record<string, Record<string, { parameters?: { name: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>> }): Operation[] {
  const found: Operation[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      // A live event stream answers forever by design; its handshake is tested on its own.
      if (path.endsWith('/stream')) continue;
      const body = Object.values(operation.requestBody?.content ?? {})[0]?.schema?.properties ?? {};
      found.push({ method: method.toUpperCase() as Operation['method'], path, params: [...(operation.parameters ?? []).map((p) => p.name), ...Object.keys(body)] });
    }
  }
  return found;
}

/** Values a careless or hostile client sends where a parameter is expected. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', 'null', 'undefined', 'true', '[]', '{}', '[{}]', '{"a":', '-1', '0', '1e309', 'NaN', '99999999999999999999999', '0x10', ' 12 ', '__proto__', '%00', '\u0000', '../../etc/passwd', 'C0FE', 'c0fe', '1A2B3C4D'),
  fc.integer().map(String),
  fc.constant('['.repeat(200) + ']'.repeat(200)),
  fc.constant('{"a":'.repeat(200) + '1' + '}'.repeat(200)),
);
const hostileJson = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constant(null), fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }));

describe.each(dialects)('hostile requests to every route (%s)', (dialect) => {
  let app: TestApp;
  let credentials: Record<string, string>[];
  let valid: Record<string, string>;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_DEVELOPER_REQUESTS_PER_MINUTE: '0', SNSR_DEVICE_REQUESTS_PER_MINUTE: '0' });
    const developer = await createDeveloper(app);
    await importCatalog(app);
    await app.context.modules.register((await app.context.accounts.byEmail(developer.email)).id, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    const created = (await app.server.inject({ method: 'POST', url: '/iot/developers/apps.json', headers: { authorization: developer.auth }, payload: { name: 'fuzz' } })).json() as { id: number };
    const token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
    valid = { idApp: String(created.id), id: String(created.id), serial: 'C0FE', sn: 'C0FE' };
    credentials = [
      {},
      { authorization: developer.auth },
      { 'x-snsr-device-key': token },
      { authorization: 'Bearer network-token' },
      { authorization: 'Basic !!!' },
      { authorization: `Basic ${Buffer.from('nobody@example.com:x').toString('base64')}` },
      { 'x-snsr-device-key': 'null' },
      { cookie: 'snsr_session=forged' },
    ];
  }, 60_000);
  afterAll(() => app.close());

  it('never answers 5xx, and every error is the JSON error body', { timeout: 60_000 }, async () => {
    const routes = operations(app.server.swagger() as never);
    expect(routes.length).toBeGreaterThan(30);
    const request = fc.record({
      route: fc.constantFrom(...routes),
      pathValues: fc.dictionary(fc.constantFrom('idApp', 'id', 'serial', 'sn'), fc.oneof(hostileText, fc.constantFrom('C0FE', '1')), { maxKeys: 2 }),
      query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('sn', 'id', 'app', 'key', 'frame', 'protocol', 'amount', 'limit', 'after', 'before', 'until', 'serials', 'modules'), fc.string({ maxLength: 8 })), hostileText), { maxLength: 4 }),
      useParams: fc.boolean(),
      body: fc.oneof(
        fc.constant(undefined),
        hostileJson.map((value) => ({ type: 'application/json', text: JSON.stringify(value) ?? 'null' })),
        hostileText.map((text) => ({ type: 'application/json', text })),
        fc.array(fc.tuple(fc.string({ maxLength: 8 }), hostileText), { maxLength: 4 }).map((pairs) => ({ type: 'application/x-www-form-urlencoded', text: new URLSearchParams(pairs).toString() })),
        hostileText.map((text) => ({ type: fc.sample(fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data', 'application/json; charset=utf-16'), 1)[0]!, text })),
      ),
      credential: fc.nat(),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'text/csv'),
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ route, pathValues, query, useParams, body, credential, accept }) => {
        const path = route.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(pathValues[name] ?? valid[name] ?? '1'));
        const named = useParams ? route.params.map((name) => [name, valid[name] ?? 'x'] as [string, string]) : [];
        const search = new URLSearchParams([...named, ...query]).toString();
        const response = await app.server.inject({
          method: route.method,
          url: `${path}${search ? `?${search}` : ''}`,
          headers: { ...credentials[credential % credentials.length], accept, ...(body && { 'content-type': body.type }) },
          ...(body && route.method !== 'GET' && { payload: body.text }),
        });
        const where = `${route.method} ${path}?${search} ${body ? `${body.type} ${body.text.slice(0, 80)}` : ''}`;
        expect(response.statusCode, `${where} → ${response.body.slice(0, 200)}`).toBeLessThan(500);
        if (response.statusCode >= 400) {
          expect(response.headers['content-type'], where).toMatch(/^application\/json/);
          expect(response.json(), where).toEqual({ statusCode: response.statusCode, error: expect.any(String), message: expect.any(String) });
        }
      }),
      { numRuns: 1500, interruptAfterTimeLimit: 25_000 },
    );
  });
});
