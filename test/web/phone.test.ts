import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../delivery/receiver.js';
import type { Receiver } from '../delivery/receiver.js';
import { EMAIL, NETWORK_TOKEN, PASSWORD, SCREENSHOTS, chromiumAvailable, launchChromium, openDashboard, screenshot, startServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

// Code run inside the page is passed as text: this Node test program has no DOM typings.

/** How far the document is wider than the window: > 0 means the page scrolls sideways. */
const OVERFLOW = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';

/**
 * Visible controls cut off at the window's right edge, except inside something that scrolls sideways
 * on purpose (a table wrapper, the tab bar): there the reader can reach them.
 */
const CUT_OFF = `[...document.querySelectorAll('button, a[href], input, select, textarea')]
  .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.closest('.visually-hidden, .offscreen, .skip-link'))
  .filter((el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (['auto', 'scroll'].includes(style.overflowX) && up.scrollWidth > up.clientWidth) return false;
    }
    const box = el.getBoundingClientRect();
    return box.right > document.documentElement.clientWidth + 1 || box.left < -1;
  })
  .map((el) => el.outerHTML.slice(0, 120))`;

/** Every path the dashboard's tab bar links to. */
const NAV_PATHS = `[...document.querySelectorAll('nav a[href]')].map((a) => a.getAttribute('href'))`;

const run = chromiumAvailable();

describe.skipIf(!run)('every dashboard page at 390 × 844, and the webhook health on the app page', () => {
  let server: RunningSnsr;
  let receiver: Receiver;
  let answer = 500;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[] = [];
  let appId: number;

  const heading = () => page.getByRole('heading', { level: 1 });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

  /** Opens `path`, waits for its heading and quiet network, and checks it fits the phone's width. */
  const fits = async (path: string, keyControls: string[] = []) => {
    await page.goto(`${server.url}${path}`);
    await heading().waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate<number>(OVERFLOW), `${path} scrolls sideways`).toBeLessThanOrEqual(0);
    expect(await page.evaluate<string[]>(CUT_OFF), `${path}: controls cut off`).toEqual([]);
    for (const name of keyControls) {
      const control = page.getByRole('button', { name, exact: true }).or(page.getByRole('link', { name, exact: true })).first();
      await control.scrollIntoViewIfNeeded();
      expect(await control.isVisible(), `${path}: ${name}`).toBe(true);
    }
  };

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: answer, body: answer >= 300 ? 'not now' : '' }));
    server = await startServer();
    // A module with data, an app calling the receiver (which refuses at first), an API key.
    await server.api('/iot/developers/modules.json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ serial: 'C0FE', key: '1A2B3C4D' }]) });
    const app = await server.api<{ id: number }>('/iot/developers/apps.json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Greenhouse sensors on the north roof', description: 'temperatures', callbackurl: receiver.url }),
    });
    appId = app.body.id;
    await server.api(`/iot/developers/apps/${appId}/modules/attach.json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serials: ['C0FE'] }) });
    const now = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 3; i++) {
      const uplink = { device: 'C0FE', time: now - 600 * (3 - i), data: `0${i}0300189167`, seqNumber: 10 + i, station: '0A1B', rssi: -112.5, snr: 14 };
      const response = await fetch(`${server.url}/network/sigfox/uplink`, {
        method: 'POST',
        headers: { authorization: `Bearer ${NETWORK_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(uplink),
      });
      expect(response.status).toBe(200);
    }
    await receiver.waitFor(3);
    await server.api('/iot/developers/keys.json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'grafana on the wall screen', scope: 'read' }) });
    browser = await launchChromium();
    ({ context, page, errors } = await openDashboard(browser, server.url));
    await page.setViewportSize({ width: 390, height: 844 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('the public pages fit before signing in', async () => {
    for (const path of ['/signin', '/signup', '/forgot-password', '/reset-password?token=nope', '/activate/0b5e7a1c-2f44-4d6e-9a8b-3c1d2e4f5a6b']) await fits(path);
    await screenshot(page, 'phone-sign-in');
  });

  it('the app page shows webhook health, sends a test message and retries every failed delivery', async () => {
    await page.goto(`${server.url}/signin`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

    await page.goto(`${server.url}/apps/${appId}`);
    const health = page.getByRole('region', { name: 'Webhook health' });
    // The worker gives up after one attempt (the browser server's setting): three failed.
    await health.getByText('0 % (0 delivered, 3 failed)').waitFor();
    await health.getByText(/^HTTP 500: not now — delivery #\d+/).waitFor();
    await health.getByText(/^p50 \d+ ms · p95 \d+ ms \(3 requests\)$/).waitFor();

    answer = 200;
    const seen = receiver.received.length;
    await health.getByRole('button', { name: 'Send test message' }).click();
    await status(/^Test message delivered: HTTP 200 in \d+ ms\.$/).waitFor();
    expect(JSON.parse(receiver.received[seen]!.body)).toMatchObject({ type: 'test', app: appId });

    const log = page.getByRole('region', { name: 'Deliveries' });
    await log.locator('tr[data-status="failed"]').first().waitFor();
    await screenshot(page, 'phone-app-health');
    await health.getByRole('button', { name: 'Retry all failed (3)' }).click();
    await status('3 failed deliveries queued again.').waitFor();
    await health.getByText('100 % (3 delivered, 0 failed)').waitFor({ timeout: 20_000 });
    expect(await health.getByRole('button', { name: 'Retry all failed (0)' }).isDisabled()).toBe(true);
    await log.locator('tr[data-status="delivered"]').nth(2).waitFor();
    expect(receiver.received.length).toBe(seen + 1 + 3);

    // The same section at desktop width, for the README.
    await page.setViewportSize({ width: 1280, height: 900 });
    try {
      await health.scrollIntoViewIfNeeded();
      await health.screenshot({ path: `${SCREENSHOTS}/app-health.png`, animations: 'disabled' });
    } finally {
      await page.setViewportSize({ width: 390, height: 844 });
    }
  }, 60_000);

  it('every signed-in page fits 390 px, with its key controls on screen', async () => {
    await page.goto(`${server.url}/apps`);
    await heading().waitFor();
    const tabs = await page.evaluate<string[]>(NAV_PATHS);
    expect(tabs.length).toBeGreaterThanOrEqual(6);
    const keyControls: Record<string, string[]> = {
      '/apps': ['Greenhouse sensors on the north roof'],
      [`/apps/${appId}`]: ['Send test message', 'Delete app'],
      '/modules': ['C0FE'],
      '/modules/C0FE': [],
      '/decoder?frame=020300189167&protocol=UDM23': ['Decode'],
      '/account': ['Regenerate token'],
      '/keys': ['Revoke grafana on the wall screen', 'Create key'],
      '/audit': [],
      '/no-such-page': ['Go to the overview'],
    };
    const paths = [...new Set([...tabs, ...Object.keys(keyControls)])];
    for (const path of paths) await fits(path, keyControls[path] ?? []);

    for (const [path, name] of [
      ['/apps', 'phone-apps'],
      [`/apps/${appId}`, 'phone-app'],
      ['/decoder?frame=020300189167&protocol=UDM23', 'phone-decoder'],
      ['/account', 'phone-account'],
      ['/keys', 'phone-keys'],
      ['/audit', 'phone-audit'],
    ] as const) {
      await fits(path);
      await screenshot(page, name);
    }
    expect(errors).toEqual([]);
    expect(context).toBeDefined();
  }, 90_000);
});
