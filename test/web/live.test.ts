import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frames } from '../helpers/uplinks.js';
import { tcpProxy } from '../helpers/tcp-proxy.js';
import { NETWORK_TOKEN, SCREENSHOTS, chromiumAvailable, closedPort, launchChromium, openDashboard, signIn, startFleetServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

const run = chromiumAvailable();
const now = Date.now();
/** Seeded F0000001…F0000005: 1 and 2 watched, 2 attached to an app whose callbacks fail. */
const MODULE = 'F0000001';
const ATTACHED = 'F0000002';
/** The module page's polling period before the stream (and while it is offline). */
const LIVE_MS = 5000;
/** How long a dropped stream may try to come back before the page polls (web/src/live-stream.ts). */
const GRACE_MS = 10_000;
/** The longest wait before a refused stream is tried again (web/src/live-stream.ts). */
const REOPEN_MAX_MS = 30_000;
/** The feed's own reads (polling used recents.json); raw uplinks are the signal's. */
const FEED_READ = /\/msgs\/(recents|history)\.json/;
const RAW = '/iot/devices/msgs/sfx/history.json';

let seq = 0;
let time = Math.floor(now / 1000) - 3600;
/** One uplink through the network endpoint, as the Sigfox backend sends it. */
async function uplink(server: RunningSnsr, device: string, data: string): Promise<void> {
  seq++;
  const answer = await fetch(`${server.url}/network/sigfox/uplink`, {
    method: 'POST',
    headers: { authorization: `Bearer ${NETWORK_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ device, time: ++time, data, seqNumber: seq, station: '0A1B', rssi: -110, snr: 12 }),
  });
  if (answer.status !== 200) throw new Error(`uplink answered ${answer.status}: ${await answer.text()}`);
}

/** API calls the page made (path and query), recorded from `since` on. */
function recordCalls(page: Page): { calls: string[]; since: () => number } {
  const calls: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/iot/') && !url.pathname.endsWith('/stream')) calls.push(`${url.pathname}${url.search}`);
  });
  return { calls, since: () => calls.length };
}

describe.skipIf(!run)('the dashboard live over the event stream, in Chromium', { timeout: 120_000 }, () => {
  let server: RunningSnsr;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let appId: number;
  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });
  const indicator = (text: string | RegExp) => page.locator('.live-indicator').filter({ hasText: text });
  /**
   * Moves the page's clock `ms` ahead, firing every timer due in that time once (a poll, a retry),
   * then leaves a second for any request that started to show.
   */
  const pass = async (ms: number) => {
    await page.clock.fastForward(ms);
    await page.waitForTimeout(1000);
  };
  const openStreams = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^snsr_open_streams (\d+)/m.exec(text)?.[1]);
  };

  beforeAll(async () => {
    server = await startFleetServer(5, now, async (db) => {
      await db.updateTable('devices').set({ watched: 1 }).where('serial', 'in', [MODULE, ATTACHED]).execute();
    });
    const created = await server.api<{ id: number }>('/iot/developers/apps.json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Live', callbackurl: `http://127.0.0.1:${await closedPort()}/hook` }),
    });
    appId = created.body.id;
    const attached = await server.api(`/iot/developers/apps/${appId}/modules/attach.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serials: [ATTACHED] }),
    });
    expect(attached.status).toBe(200);
    browser = await launchChromium();
    ({ page, errors: pageErrors } = await openDashboard(browser, server.url));
    // The page's timers run on a clock the tests move ahead instead of waiting out polling periods
    // and backoffs; between the jumps its time flows as usual.
    await page.clock.install();
    page.setDefaultTimeout(30_000);
    await signIn(page, `${server.url}/`);
    await heading('Overview').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('adds an uplink to the module page as it arrives, and polls nothing meanwhile', async () => {
    await page.goto(`${server.url}/modules/${MODULE}`);
    await heading(`Module ${MODULE}`).waitFor();
    await page.getByText('No message yet').waitFor();
    await indicator('Live').waitFor();
    const { calls } = recordCalls(page);

    await uplink(server, MODULE, frames.keepAlive(1));
    await page.locator('table.messages tbody tr.fresh').first().waitFor();
    // The message came with the event: nothing read it. Then a window longer than the old poll.
    expect(calls.filter((call) => FEED_READ.test(call))).toEqual([]);
    await pass(LIVE_MS * 1.5);
    // Only the state read again after the message (debounced): once each, no periodic call.
    const paths = calls.map((call) => call.split('?')[0]!);
    expect(paths.filter((p) => FEED_READ.test(p))).toEqual([]);
    for (const path of new Set(paths)) expect(paths.filter((p) => p === path).length, `${path} in ${calls.join(', ')}`).toBe(1);
    const stateReads = ['/iot/developers/device.json', '/iot/devices/children.json', '/iot/developers/alerts.json', RAW];
    expect(paths.filter((p) => !stateReads.includes(p))).toEqual([]);
    expect(paths).toContain('/iot/developers/device.json');
    expect(await indicator('Live').count()).toBe(1);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.locator('section[aria-labelledby="module-messages"]').screenshot({ path: join(SCREENSHOTS, 'live-module.png') });
  });

  it('reads the module state a few times for a burst of 100 uplinks, and shows each once', async () => {
    const { calls } = recordCalls(page);
    const started = Date.now();
    // Ten at a time: each uplink answered before the next of its lane, all within a few seconds.
    await Promise.all(
      Array.from({ length: 10 }, async (_, lane) => {
        for (let i = 0; i < 10; i++) await uplink(server, MODULE, frames.keepAlive(lane * 10 + i + 2));
      }),
    );
    const fresh = page.locator('table.messages tbody tr.fresh');
    await expect.poll(() => fresh.count(), { timeout: 30_000 }).toBe(101);
    const burst = Date.now() - started;
    await page.waitForTimeout(1500);
    // Reads wait for a pause of 0.5 s, and come at least every 3 s while events keep coming: a
    // few for the whole burst however long a busy machine made it, far from one per message.
    const deviceReads = calls.filter((call) => call.startsWith('/iot/developers/device.json')).length;
    expect(deviceReads).toBeGreaterThan(0);
    expect(deviceReads, `${deviceReads} reads over a burst of ${burst} ms`).toBeLessThanOrEqual(Math.ceil(burst / 3000) + 2);
    expect(deviceReads).toBeLessThan(20);
    expect(calls.filter((call) => /recents/.test(call))).toEqual([]);
    // The state shown is the last one: the module's message count now.
    const { msgs } = (await server.api<{ msgs: number }>(`/iot/developers/device.json?sn=${MODULE}`)).body;
    await page.locator('.module-state dd').filter({ hasText: new RegExp(`^${msgs} · `) }).waitFor();
  });

  it("shows a delivery's outcome in the app's delivery log and health as it happens", async () => {
    await page.goto(`${server.url}/apps/${appId}`);
    await heading('Live').waitFor();
    await page.getByText('No delivery yet').waitFor();
    await indicator('Live').waitFor();
    const { calls } = recordCalls(page);
    await uplink(server, ATTACHED, frames.keepAlive(1));
    await page.locator('table.deliveries tr[data-status="failed"]').first().waitFor();
    await page.getByRole('button', { name: 'Retry all failed (1)' }).waitFor();
    const deliveryReads = () => calls.filter((call) => call.includes('/deliveries.json')).length;
    await pass(LIVE_MS * 1.5);
    // One outcome, one read (or two if a retrying outcome came first): no reads every 5 s.
    const read = deliveryReads();
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThanOrEqual(2);
    // Any read still due has happened: another period brings none.
    await pass(LIVE_MS * 1.5);
    expect(deliveryReads()).toBe(read);
  });

  it('bumps the open-alerts count of the overview when an alert is raised', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await heading('Overview').waitFor();
    const openAlerts = page.locator('[data-figure="Open alerts"]');
    await expect.poll(() => openAlerts.textContent()).toBe('0');
    await indicator('Live').waitFor();
    await uplink(server, MODULE, frames.batteryLow(3));
    await expect.poll(() => openAlerts.textContent()).toBe('1');
    await page.getByRole('list', { name: 'Latest alerts' }).getByText(MODULE).waitFor();
  });

  it('closes the stream when the page is left or hidden: none is left open', async () => {
    await expect.poll(openStreams).toBe(1);
    await page.getByRole('link', { name: 'Modules', exact: true }).click();
    await heading('Modules').waitFor();
    await indicator('Live').waitFor();
    await expect.poll(openStreams).toBe(1);
    await page.getByRole('link', { name: MODULE }).click();
    await heading(`Module ${MODULE}`).waitFor();
    await indicator('Live').waitFor();
    // The module page's views share one stream.
    await expect.poll(openStreams).toBe(1);
    // A hidden tab holds no connection; shown again, it reopens the stream and reads what it missed.
    const visibility = (state: string) =>
      page.evaluate(`(() => {
        Object.defineProperty(document, 'visibilityState', { value: '${state}', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      })()`);
    await visibility('hidden');
    await expect.poll(openStreams).toBe(0);
    await uplink(server, MODULE, frames.keepAlive(4));
    expect(await page.locator('table.messages tbody tr.fresh').count()).toBe(0);
    await visibility('visible');
    await expect.poll(openStreams).toBe(1);
    await page.locator('table.messages tbody tr.fresh').first().waitFor();
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await heading('Apps').waitFor();
    await expect.poll(openStreams).toBe(0);
  });

  it('falls back to polling while the stream is refused, and goes live again when it is back', async () => {
    let refused = 0;
    await page.route('**/iot/developers/stream**', (route) => (refused++, route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"down"}' })));
    const { calls } = recordCalls(page);
    await page.goto(`${server.url}/modules/${MODULE}`);
    await heading(`Module ${MODULE}`).waitFor();
    await indicator('Offline — refreshing every 5 s').waitFor();
    // The longest state fits a phone: nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    mkdirSync(SCREENSHOTS, { recursive: true });
    const messages = page.locator('section[aria-labelledby="module-messages"]');
    await messages.scrollIntoViewIfNeeded();
    const box = (await messages.boundingBox())!;
    await page.screenshot({ path: join(SCREENSHOTS, 'live-offline-phone.png'), clip: { x: 0, y: Math.max(0, box.y - 10), width: 390, height: 320 } });
    await page.setViewportSize({ width: 1280, height: 900 });
    // From here the page's time moves only when the test moves it. The stream is tried again 5 s
    // after its refusal, then 10 s after that: at 10 s only a poll can read what came meanwhile.
    await page.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 2000);
    let pending = 0;
    const started = (request: Request) => void (request.url().includes('/recents.json') && pending++);
    const ended = (request: Request) => void (request.url().includes('/recents.json') && pending--);
    page.on('request', started).on('requestfinished', ended).on('requestfailed', ended);
    await page.clock.fastForward(LIVE_MS);
    await expect.poll(() => refused).toBeGreaterThanOrEqual(2);
    // The refusal's read (if the poll's did not already serve it) is done: none is in flight at 10 s.
    await page.waitForTimeout(500);
    await expect.poll(() => pending).toBe(0);
    const before = await page.locator('table.messages tbody tr').count();
    await uplink(server, MODULE, frames.keepAlive(5));
    await page.clock.fastForward(LIVE_MS);
    await page.locator('table.messages tbody tr.fresh').first().waitFor({ timeout: 20_000 });
    expect(await page.locator('table.messages tbody tr').count()).toBe(before + 1);
    page.off('request', started).off('requestfinished', ended).off('requestfailed', ended);

    await page.unroute('**/iot/developers/stream**');
    // The stream is tried again when its backoff ends.
    await page.clock.fastForward(REOPEN_MAX_MS);
    await indicator('Live').waitFor({ timeout: 45_000 });
    const polled = calls.filter((call) => call.includes('/recents.json')).length;
    await uplink(server, MODULE, frames.keepAlive(6));
    await expect.poll(() => page.locator('table.messages tbody tr.fresh').count()).toBe(2);
    await pass(LIVE_MS * 1.5);
    // Back live: the reconnection read once what was missed, then nothing was polled.
    expect(calls.filter((call) => call.includes('/recents.json')).length).toBeLessThanOrEqual(polled + 1);
  });

  it('says it is reconnecting when the connection drops, then offline, and catches up when it is back', async () => {
    // The page goes through a proxy the test takes down: same host, so the session cookie goes too.
    const proxy = await tcpProxy(Number(new URL(server.url).port));
    // The page's time flows again (the test before paused it).
    await page.clock.resume();
    try {
      await page.goto(`http://127.0.0.1:${proxy.port}/modules/${MODULE}`);
      await heading(`Module ${MODULE}`).waitFor();
      await indicator('Live').waitFor();
      await proxy.down();
      await indicator('Reconnecting…').waitFor();
      await page.clock.fastForward(GRACE_MS);
      await indicator('Offline — refreshing every 5 s').waitFor({ timeout: 30_000 });
      // Sent while the page could not hear it: there once the stream is back.
      await uplink(server, MODULE, frames.keepAlive(7));
      await proxy.up();
      await indicator('Live').waitFor({ timeout: 30_000 });
      await expect.poll(() => page.locator('table.messages tbody tr.fresh').count()).toBe(1);
      const [newest] = (await server.api<{ when: number }[]>(`/iot/devices/msgs/history.json?sn=${MODULE}&amount=1`)).body;
      expect(await page.locator('table.messages tbody tr.fresh').getAttribute('data-when')).toBe(String(newest!.when));
    } finally {
      await proxy.down();
    }
    expect(pageErrors).toEqual([]);
  });
});
