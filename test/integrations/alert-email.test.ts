import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { AlertMailer } from '../../src/integrations/email/alert-mailer.js';
import { Lease } from '../../src/monitoring/lease.js';
import { AlertEmailsRepository } from '../../src/storage/alert-emails-repository.js';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { startSmtp } from '../helpers/smtp.js';
import type { TestSmtp } from '../helpers/smtp.js';
import { tcpProxy } from '../helpers/tcp-proxy.js';
import type { TcpProxy } from '../helpers/tcp-proxy.js';
import { frames, uplink } from '../helpers/uplinks.js';

const PUBLIC = 'https://snsr.example.com';
/** Short waits, so that the tests wait on state for seconds at most; the interval is its own test. */
const FAST = { settleMs: 50, pollMs: 300, intervalMs: 1, backoffMs: 200, maxBackoffMs: 400 };
const T0 = 1_714_567_890;

describe.each(dialects)('alert emails (%s)', (dialect) => {
  let smtp: TestSmtp;
  let proxy: TcpProxy;
  let app: TestApp;
  let t = T0;
  const running: AlertMailer[] = [];
  beforeAll(async () => {
    smtp = await startSmtp();
    proxy = await tcpProxy(Number(new URL(smtp.url).port));
    app = await startApp(dialect, { SNSR_SMTP_URL: `smtp://127.0.0.1:${proxy.port}`, SNSR_PUBLIC_URL: PUBLIC });
    await importCatalog(app);
    await createDeveloper(app, 'alice@example.com');
    await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    await app.context.modules.register(2, [{ serial: 'BEEF', key: 'DEADBEEF' }]);
    for (const serial of ['C0FE', '0ACE', 'BEEF']) await app.context.repositories.devices.setFlags((await device(serial)).id, { watched: true });
    await app.context.alertEmail.set(1, true);
    await app.context.alertEmail.set(2, true);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((mailer) => mailer.stop()));
  });
  afterAll(async () => {
    await app.close();
    await proxy.down();
    await smtp.close();
  });

  const device = async (serial: string) => (await app.context.repositories.devices.bySerial(serial))!;
  const start = (context: Context = app.context, owner = 'one', overrides = {}) => {
    const mailer = context.startAlertMailer({ ...FAST, owner, ...overrides })!;
    running.push(mailer);
    return mailer;
  };
  const alarm = (serial: string, frame: string) => uplink(app, serial, frame, (t += 10));
  const waiting = async () =>
    (await app.context.storage.db.selectFrom('alerts').select('id').where('email_pending', '=', 1).execute()).length;
  const emailsCounted = async (outcome: string) => {
    const metric = await app.context.metrics.registry.getSingleMetric('snsr_alert_emails_total')!.get();
    return metric.values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  };
  async function until<T>(probe: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
    for (let i = 0; ; i++) {
      const value = await probe();
      if (check(value)) return value;
      if (i > 800) throw new Error(`condition not met; last value ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  /** Bob's alert, raised after what is being checked: once his email is in, the mailer passed over everything before. */
  const barrier = async () => {
    await alarm('BEEF', frames.tempHigh(1));
    await smtp.next('bob@example.com', /temperature/);
    await alarm('BEEF', frames.tempOk(2));
  };

  it("emails an alert raised by a watched device's alarm frame to the account's own address", async () => {
    start();
    await alarm('C0FE', frames.batteryLow(1));
    const email = await smtp.next('alice@example.com');
    const [alert] = await app.context.alerts.list(1, { limit: 1 });
    expect(email.to).toEqual(['alice@example.com']);
    expect(email.subject).toBe('snsr alert: battery low (2.85 V) on C0FE');
    const raised = alert!.raised.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
    expect(email.text).toContain(
      ['battery low (2.85 V)', '  Device:  module C0FE', '  Kind:    battery_low', `  Raised:  ${raised}`, `  Module:  ${PUBLIC}/modules/C0FE`].join('\n'),
    );
    expect(email.text).toContain(`${PUBLIC}/account`);
    await until(waiting, (count) => count === 0); // marked once SMTP accepted it
    // Counted once the mailer has the database's answer, which may reach this test's query first.
    await until(() => emailsCounted('sent'), (sent) => sent === 1);
    await alarm('C0FE', frames.batteryOk(2));
  });

  it('sends one digest for 50 alerts waiting at once, listing the first 20 and counting the rest', async () => {
    // Children 1–15 of two modules, battery low and temperature high each: 50 open alerts.
    const raised: [string, number, 'batteryLow' | 'tempHigh'][] = [];
    for (const serial of ['C0FE', '0ACE']) for (let entry = 1; entry <= 15; entry++) for (const kind of ['batteryLow', 'tempHigh'] as const) raised.push([serial, entry, kind]);
    for (const [serial, entry, kind] of raised.slice(0, 50)) await alarm(serial, frames[kind](entry, entry));
    expect(await waiting()).toBe(50);
    start();
    const email = await smtp.next('alice@example.com');
    expect(email.subject).toBe('snsr: 50 new alerts');
    expect(email.text).toContain('Watched devices raised 50 alerts since the last email:');
    expect(email.text.match(/^ {2}Kind:/gm)).toHaveLength(20);
    expect(email.text).toContain('  Device:  device C0FE/1 of module C0FE');
    expect(email.text).toContain(`... and 30 more. All alerts of your modules: ${PUBLIC}/`);
    await until(waiting, (count) => count === 0);
    await barrier();
    expect(smtp.received.filter((received) => received.to.includes('alice@example.com'))).toEqual([]);
  });

  it('keeps alerts while SMTP is down and emails them once it is back, once', async () => {
    await proxy.down();
    const failedBefore = await emailsCounted('failed');
    start();
    await alarm('C0FE', frames.tempHigh(3));
    await until(() => emailsCounted('failed'), (failed) => failed >= failedBefore + 2); // retried, backing off
    expect(await waiting()).toBe(1);
    await proxy.up();
    const email = await smtp.next('alice@example.com');
    expect(email.subject).toMatch(/^snsr alert: temperature above .* on C0FE$/);
    await until(waiting, (count) => count === 0);
    await barrier();
    expect(smtp.received.filter((received) => received.to.includes('alice@example.com'))).toEqual([]);
    await alarm('C0FE', frames.tempOk(4));
  });

  it('sends nothing to an account with email off, and turning it off drops what was waiting', async () => {
    await proxy.down();
    start();
    await alarm('C0FE', frames.tempHigh(5));
    expect(await waiting()).toBe(1);
    expect((await app.context.alertEmail.set(1, false)).email).toBe(false);
    expect(await waiting()).toBe(0);
    await proxy.up();
    await alarm('C0FE', frames.tempOk(6));
    await alarm('0ACE', frames.batteryLow(1));
    await barrier();
    expect(smtp.received.filter((received) => received.to.includes('alice@example.com'))).toEqual([]);
    await app.context.alertEmail.set(1, true);
    await alarm('0ACE', frames.batteryOk(2));
  });

  it('waits the interval between two emails to one account, and sends what came meanwhile in one', async () => {
    start(app.context, 'one', { intervalMs: 1500 });
    await alarm('0ACE', frames.batteryLow(3));
    await smtp.next('alice@example.com');
    const first = Date.now();
    await alarm('0ACE', frames.tempHigh(4));
    await alarm('C0FE', frames.tempHigh(7));
    const second = await smtp.next('alice@example.com');
    expect(Date.now() - first).toBeGreaterThanOrEqual(1400);
    expect(second.subject).toBe('snsr: 2 new alerts on 2 modules');
    await alarm('0ACE', frames.batteryOk(5));
    await alarm('0ACE', frames.tempOk(6));
    await alarm('C0FE', frames.tempOk(8));
  });

  it("retries an account whose address SMTP refuses on its own, while the others' emails go out", async () => {
    smtp.refused.add('bob@example.com');
    const failedBefore = await emailsCounted('failed');
    start();
    await alarm('BEEF', frames.batteryLow(3));
    await until(() => emailsCounted('failed'), (failed) => failed >= failedBefore + 2); // retried, backing off
    await alarm('C0FE', frames.batteryLow(20));
    expect((await smtp.next('alice@example.com')).subject).toBe('snsr alert: battery low (2.85 V) on C0FE');
    smtp.refused.delete('bob@example.com');
    expect((await smtp.next('bob@example.com')).subject).toBe('snsr alert: battery low on BEEF') // UDM22 frames carry no voltage;
    await until(waiting, (count) => count === 0);
    await alarm('BEEF', frames.batteryOk(4));
    await alarm('C0FE', frames.batteryOk(21));
  });

  it('marks what SMTP accepted before anything else when the database failed to, and does not email it again', async () => {
    const store = new AlertEmailsRepository(app.context.storage.db);
    let failures = 1;
    const markSent = store.markSent.bind(store);
    store.markSent = async (ids) => {
      if (failures-- > 0) throw new Error('database unavailable');
      await markSent(ids);
    };
    const lease = new Lease(app.context.storage.db, app.context.storage.capabilities, 'alert-mailer', 'flaky', 60_000);
    const settings = { ...FAST, publicUrl: PUBLIC, sendTimeoutMs: 10_000 };
    const mailer = new AlertMailer(store, app.context.mailer!, lease, app.context.notifier, settings, pino({ level: 'silent' }), () => {});
    running.push(mailer);
    await alarm('C0FE', frames.tempHigh(9));
    await expect(mailer.pass()).rejects.toThrow('database unavailable');
    await smtp.next('alice@example.com', /temperature/);
    expect(await waiting()).toBe(1);
    expect(await mailer.pass()).toMatchObject({ sent: 0, failed: 0 });
    expect(await waiting()).toBe(0);
    mailer.start();
    await barrier();
    expect(smtp.received.filter((received) => received.to.includes('alice@example.com'))).toEqual([]);
    await alarm('C0FE', frames.tempOk(10));
  });

  it.runIf(dialect === 'postgres')('emails each alert once with two processes sending, the second taking over when the first stops', async () => {
    // A second process: its own context (pool, notifier, mailer) on the same database and SMTP server.
    const other = await createContext(app.context.config, { migrate: false, log: pino({ level: 'silent' }) });
    try {
      const one = start(app.context, 'one');
      const two = start(other, 'two');
      const subjects: string[] = [];
      for (let i = 0; i < 3; i++) {
        await alarm('C0FE', frames.batteryLow(10 + i * 2));
        subjects.push((await smtp.next('alice@example.com')).subject);
        await alarm('C0FE', frames.batteryOk(11 + i * 2));
      }
      const holder = (await one.lease.acquire()) ? one : two;
      await holder.stop();
      for (let i = 3; i < 6; i++) {
        await alarm('C0FE', frames.batteryLow(10 + i * 2));
        subjects.push((await smtp.next('alice@example.com')).subject);
        await alarm('C0FE', frames.batteryOk(11 + i * 2));
      }
      await barrier();
      // Bob's email is in once SMTP took it; it is marked sent a moment later.
      await until(waiting, (count) => count === 0);
      const extra = smtp.received.filter((received) => received.to.includes('alice@example.com')).map((received) => received.subject);
      expect({ subjects, extra, waiting: await waiting() }).toEqual({ subjects: Array(6).fill('snsr alert: battery low (2.85 V) on C0FE'), extra: [], waiting: 0 });
    } finally {
      await Promise.all(running.splice(0).map((mailer) => mailer.stop()));
      await other.close();
    }
  });
});
