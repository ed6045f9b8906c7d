import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { link, startSmtp } from '../helpers/smtp.js';
import type { TestSmtp } from '../helpers/smtp.js';
import { EMAIL, NETWORK_TOKEN, chromiumAvailable, closedPort, launchChromium, openDashboard, signIn, startServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

const run = chromiumAvailable();
const json = { 'content-type': 'application/json' };

describe.skipIf(!run)('alert emails from My Account, sent by `snsr serve` (Chromium)', { timeout: 120_000 }, () => {
  let smtp: TestSmtp;
  let server: RunningSnsr;
  let bare: RunningSnsr;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  const toggle = () => page.getByRole('switch', { name: 'Email me when an alert is raised' });

  beforeAll(async () => {
    smtp = await startSmtp();
    const port = await closedPort();
    [server, bare] = await Promise.all([
      startServer({ PORT: String(port), SNSR_PUBLIC_URL: `http://127.0.0.1:${port}`, SNSR_SMTP_URL: smtp.url, SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' }),
      startServer({ SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' }),
    ]);
    browser = await launchChromium();
    ({ page, errors: pageErrors } = await openDashboard(browser, server.url));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.stop(), bare?.stop()]);
    await smtp?.close();
  });

  it('turns alert emails on with the switch, and the alarm of a watched module arrives by email with a link to its page', async () => {
    await signIn(page, `${server.url}/account`);
    await page.getByRole('heading', { name: 'My Account', level: 1 }).waitFor();
    expect(await toggle().isChecked()).toBe(false);
    await toggle().check();
    await page.getByRole('status').filter({ hasText: `Alerts will be emailed to ${EMAIL}.` }).waitFor();
    expect((await server.api('/iot/developers/alerts/settings.json')).body).toEqual({ email: true, email_available: true });
    await page.reload();
    await page.getByRole('heading', { name: 'My Account', level: 1 }).waitFor();
    await expect.poll(() => toggle().isChecked()).toBe(true);

    await server.api('/iot/developers/modules.json', { method: 'POST', headers: json, body: JSON.stringify([{ serial: 'C0FE', key: '1A2B3C4D' }]) });
    const module = (await server.api<{ id: string }>('/iot/developers/device.json?sn=C0FE')).body;
    expect((await server.api(`/iot/devices/watch.json?id=${module.id}&sn=C0FE&value=true`, { method: 'POST' })).status).toBe(200);
    const uplink = await fetch(`${server.url}/network/sigfox/uplink`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${NETWORK_TOKEN}` },
      body: JSON.stringify({ device: 'C0FE', time: 1_795_000_000, data: '00000064', seqNumber: 1, station: '0A1B', rssi: -120, snr: 10 }),
    });
    expect(uplink.status).toBe(200);
    const email = await smtp.next(EMAIL, /battery low/);
    await page.goto(link(email, `${server.url}/modules/`));
    await page.getByRole('heading', { name: 'Module C0FE', level: 1 }).waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('shows the switch off and disabled, with the reason, when the server has no SMTP', async () => {
    const other = await openDashboard(browser, bare.url);
    try {
      page = other.page;
      await signIn(page, `${bare.url}/account`);
      await page.getByText('This server cannot send email: its operator has not configured SMTP').waitFor();
      expect(await toggle().isDisabled()).toBe(true);
      expect(await toggle().isChecked()).toBe(false);
      expect(other.errors).toEqual([]);
    } finally {
      await other.context.close();
    }
  });
});
