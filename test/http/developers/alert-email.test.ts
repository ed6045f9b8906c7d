import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { frames, uplink } from '../../helpers/uplinks.js';

const URL = '/iot/developers/alerts/settings.json';
const T0 = 1_714_567_890;

describe.each(dialects)('alert email setting (%s)', (dialect) => {
  describe('on a server without SMTP', () => {
    let app: TestApp;
    let alice: Awaited<ReturnType<typeof createDeveloper>>;
    beforeAll(async () => {
      app = await startApp(dialect);
      alice = await createDeveloper(app, 'alice@example.com');
    });
    afterAll(() => app.close());

    it('answers 401 without credentials', async () => {
      expect((await app.server.inject({ method: 'GET', url: URL })).statusCode).toBe(401);
      expect((await app.server.inject({ method: 'POST', url: `${URL}?email=true` })).statusCode).toBe(401);
    });

    it('says email is off and not available, refuses to turn it on with a 409, and turns it off', async () => {
      const get = await app.server.inject({ method: 'GET', url: URL, headers: { authorization: alice.auth } });
      expect(get.json()).toEqual({ email: false, email_available: false });
      const on = await app.server.inject({ method: 'POST', url: `${URL}?email=true`, headers: { authorization: alice.auth } });
      expect(on.statusCode).toBe(409);
      expect(on.json()).toMatchObject({ statusCode: 409, error: 'Conflict', message: expect.stringContaining('SNSR_SMTP_URL') });
      const off = await app.server.inject({ method: 'POST', url: `${URL}?email=false`, headers: { authorization: alice.auth } });
      expect(off.statusCode).toBe(200);
      expect(off.json()).toEqual({ email: false, email_available: false });
    });
  });

  describe('on a server with SMTP', () => {
    let app: TestApp;
    let alice: Awaited<ReturnType<typeof createDeveloper>>;
    let bob: Awaited<ReturnType<typeof createDeveloper>>;
    beforeAll(async () => {
      // No server needs to listen there: these tests send nothing (no alert mailer runs).
      app = await startApp(dialect, { SNSR_SMTP_URL: 'smtp://127.0.0.1:2525', SNSR_PUBLIC_URL: 'https://snsr.example.com' });
      await importCatalog(app);
      alice = await createDeveloper(app, 'alice@example.com');
      bob = await createDeveloper(app, 'bob@example.com');
      await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
      await app.context.repositories.devices.setFlags((await app.context.repositories.devices.bySerial('C0FE'))!.id, { watched: true });
    });
    afterAll(() => app.close());

    const call = (method: 'GET' | 'POST', url: string, payload?: string | object, auth = alice.auth, type?: string) =>
      app.server.inject({ method, url, headers: { authorization: auth, ...(type && { 'content-type': type }) }, ...(payload !== undefined && { payload }) });

    it('answers 400 naming email for a missing or bad value', async () => {
      for (const bad of ['', '?email=', '?email=maybe', '?email=2']) {
        const answer = await call('POST', `${URL}${bad}`);
        expect(answer.statusCode, bad).toBe(400);
        expect(answer.json().message, bad).toMatch(/^email (is required|must be true or false)/);
      }
      expect((await call('POST', URL, { email: 'yes' })).json()).toMatchObject({ statusCode: 400, message: 'email must be true or false, got "yes"' });
    });

    it('stores the choice from the query, a form body or a JSON body, per account, and audits it', async () => {
      expect((await call('GET', URL)).json()).toEqual({ email: false, email_available: true });
      expect((await call('POST', `${URL}?email=true`)).json()).toEqual({ email: true, email_available: true });
      expect((await call('GET', URL)).json()).toEqual({ email: true, email_available: true });
      expect((await call('GET', URL, undefined, bob.auth)).json()).toEqual({ email: false, email_available: true });
      expect((await call('POST', URL, { email: false })).json()).toEqual({ email: false, email_available: true });
      expect((await call('GET', URL)).json()).toMatchObject({ email: false });
      expect((await call('POST', URL, 'email=1', alice.auth, 'application/x-www-form-urlencoded')).json()).toMatchObject({ email: true });
      expect((await call('GET', URL)).json()).toMatchObject({ email: true });

      const audit = (await call('GET', '/iot/developers/audit.json')).json() as { action: string; detail: unknown }[];
      expect(audit.filter((entry) => entry.action === 'alert.email').map((entry) => entry.detail)).toEqual([{ email: true }, { email: false }, { email: true }]);
    });

    it('marks alerts raised while email is on as waiting, and turning it off drops them', async () => {
      const pending = () => app.context.storage.db.selectFrom('alerts').select(['kind', 'email_pending']).orderBy('id').execute();
      expect((await call('POST', `${URL}?email=true`)).statusCode).toBe(200);
      await uplink(app, 'C0FE', frames.batteryLow(1), T0);
      expect(await pending()).toEqual([{ kind: 'battery_low', email_pending: 1 }]);
      expect((await call('POST', `${URL}?email=false`)).statusCode).toBe(200);
      expect(await pending()).toEqual([{ kind: 'battery_low', email_pending: 0 }]);
      await uplink(app, 'C0FE', frames.tempHigh(2), T0 + 10);
      expect(await pending()).toEqual([
        { kind: 'battery_low', email_pending: 0 },
        { kind: 'temperature_high', email_pending: 0 },
      ]);
    });
  });
});
