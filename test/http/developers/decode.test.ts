import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

interface Vector {
  id: string;
  protocol: 'UDM22' | 'UDM23' | 'both';
  hex: string;
  expected?: unknown;
}
const { vectors } = JSON.parse(readFileSync(new URL('../../fixtures/udm/spec-vectors.json', import.meta.url), 'utf8')) as { vectors: Vector[] };
const cases = vectors.flatMap((v) => (v.protocol === 'both' ? (['UDM22', 'UDM23'] as const) : [v.protocol]).map((protocol) => ({ ...v, protocol })));

describe.each(dialects)('GET /iot/developers/decode (%s)', (dialect) => {
  let app: TestApp;
  let auth: string;
  beforeAll(async () => {
    app = await startApp(dialect);
    auth = (await createDeveloper(app)).auth;
  });
  afterAll(() => app.close());

  const get = (url: string, authorization: string | undefined = auth) =>
    app.server.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });

  it('answers 401 without credentials', async () => {
    expect((await get('/iot/developers/decode?frame=00000046&protocol=UDM23', '')).statusCode).toBe(401);
    expect((await get('/iot/developers/decode/explain?frame=00000046&protocol=UDM23', '')).statusCode).toBe(401);
  });

  it('answers the spec sample shape for a battery-low event', async () => {
    const response = await get('/iot/developers/decode?frame=000000&protocol=UDM22');
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('{"msg":{"extra":{"entry_id":0,"frame_type":"srv_frm_event","code":"event_battery_low"},"custom":{}}}');
  });

  it.each(cases)('decodes vector $id under $protocol as section 11 says', async ({ hex, protocol, expected }) => {
    const response = await get(`/iot/developers/decode?frame=${hex}&protocol=${protocol}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(expected ?? {});
  });

  it('accepts hex and protocol in any case', async () => {
    expect((await get('/iot/developers/decode?frame=a6000632&protocol=udm23')).json()).toEqual(
      (await get('/iot/developers/decode?frame=A6000632&protocol=UDM23')).json(),
    );
  });

  it('accepts a 0x prefix and spaces between bytes, in decode and explain', async () => {
    const plain = (await get('/iot/developers/decode?frame=A6000632&protocol=UDM23')).json();
    expect(plain.msg).toBeDefined();
    for (const frame of ['0xa6000632', '0XA6000632', 'a6 00 06 32', ' 0x a6 00 06 32 ']) {
      expect((await get(`/iot/developers/decode?frame=${encodeURIComponent(frame)}&protocol=UDM23`)).json(), frame).toEqual(plain);
      const explained = (await get(`/iot/developers/decode/explain?frame=${encodeURIComponent(frame)}&protocol=UDM23`)).json();
      expect(explained).toMatchObject({ frame: 'A6000632', valid: true, decoded: plain });
    }
    expect((await get('/iot/developers/decode?frame=0x&protocol=UDM23')).json()).toEqual({});
  });

  it('answers 400 naming the parameter for a missing frame or a bad protocol', async () => {
    const noFrame = await get('/iot/developers/decode?protocol=UDM23');
    expect(noFrame.statusCode).toBe(400);
    expect(noFrame.json().message).toMatch(/frame is required/);
    for (const query of ['frame=00000046', 'frame=00000046&protocol=UDM24', 'frame=00000046&protocol=']) {
      const response = await get(`/iot/developers/decode?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().message).toMatch(/protocol must be UDM22 or UDM23/);
    }
  });

  it('answers {} for frames that are not UDM, never a 5xx', async () => {
    for (const frame of ['', '010203', 'zz', '%00', 'x'.repeat(500)]) {
      const response = await get(`/iot/developers/decode?frame=${encodeURIComponent(frame)}&protocol=UDM23`);
      expect(response.statusCode, frame).toBe(200);
      expect(response.json()).toEqual({});
    }
  });

  it('explains a frame field by field', async () => {
    const response = await get('/iot/developers/decode/explain?frame=00000046&protocol=UDM23');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ protocol: 'UDM23', frame: '00000046', valid: true });
    expect(body.decoded).toEqual((await get('/iot/developers/decode?frame=00000046&protocol=UDM23')).json());
    expect(body.fields.map((f: { name: string }) => f.name)).toEqual(['retry', 'stamp', 'cpt', 'entry_id', 'frame type', 'event code', 'voltage']);
    expect(body.fields.at(-1)).toMatchObject({ offset: 3, bits: 'b3.7-0', raw: '01000110', meaning: expect.stringMatching(/2550 mV/) });
    const invalid = (await get('/iot/developers/decode/explain?frame=000020&protocol=UDM22')).json();
    expect(invalid).toMatchObject({ valid: false, reason: expect.stringMatching(/rule 7/), decoded: {} });
  });
});
