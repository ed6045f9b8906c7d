import { readFileSync } from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetModule } from '../helpers/fleet.js';
import { NETWORK_TOKEN, chromiumAvailable, closedPort, launchChromium, openDashboard, screenshot, signIn, startFleetServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

const FLEET = 10_000;
const now = Date.now();
const nowS = Math.floor(now / 1000);
const fleet = Array.from({ length: FLEET }, (_, k) => fleetModule(k + 1, now));
const run = chromiumAvailable();
const fmt = (n: number) => n.toLocaleString('en-US');

/** F0000003's uplinks: 30 hourly keep-alives, two lost (sequence numbers skipped), the newest without RSSI. */
const MODULE = 'F0000003';
const LOST = new Set([10, 11]);
const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase();
const uplinks = Array.from({ length: 32 }, (_, k) => k)
  .filter((k) => !LOST.has(k))
  .map((k) => ({
    device: MODULE,
    time: nowS - (32 - k) * 3600 + 120,
    data: `${hex(k & 15)}030001${hex(0x91 - Math.floor(k / 8))}${hex(0x64 + (k % 5))}`,
    seqNumber: 100 + k,
    station: k % 2 ? '0A1B' : '0C2D',
    ...(k < 31 && { rssi: -100 - (k % 20), snr: 8 + (k % 7) }),
  }));
/** Raw uplinks of other modules, straight into the table: 3 per hour of the last 23 hours for 40 modules. */
const BACKGROUND = Array.from({ length: 40 * 23 * 3 }, (_, k) => ({ module: fleet[100 + (k % 40)]!.serial, time: nowS - Math.floor(k / 120) * 3600 - (k % 3) * 60 - 30, seq: k }));

/** The element lies wholly inside the 1280×800 first screen. */
async function inFirstScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox();
  return box !== null && box.y >= 0 && box.y + box.height <= 800 && box.x + box.width <= 1280;
}

describe.skipIf(!run)('the overview and the module page with 10,000 modules, in Chromium', { timeout: 120_000 }, () => {
  let server: RunningSnsr;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });
  const figure = (label: string) => page.locator(`[data-figure="${label}"]`);

  beforeAll(async () => {
    server = await startFleetServer(FLEET, now, async (db, id) => {
      await db
        .insertInto('raw_messages')
        .values(BACKGROUND.map((r) => ({ module_serial: r.module, seq_number: r.seq, time_s: r.time, data: '00030018916A', received_at: r.time * 1000 })))
        .execute();
      const device = await db.selectFrom('devices').select('id').where('serial', '=', 'F0000005').executeTakeFirstOrThrow();
      await db.insertInto('alerts').values({ account_id: id, module_serial: 'F0000005', device_id: device.id, kind: 'lost_contact', message: 'no uplink for 2 h', raised_at: now }).execute();
    });
    // F0000003's callbacks go to a closed port: each uplink becomes a failed delivery.
    const created = await server.api<{ id: number }>('/iot/developers/apps.json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Webhook', callbackurl: `http://127.0.0.1:${await closedPort()}/hook` }),
    });
    await server.api(`/iot/developers/apps/${created.body.id}/modules/attach.json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ serials: [MODULE] }) });
    for (const uplink of uplinks) {
      const answer = await fetch(`${server.url}/network/sigfox/uplink`, {
        method: 'POST',
        headers: { authorization: `Bearer ${NETWORK_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(uplink),
      });
      expect(answer.status).toBe(200);
    }
    // Polled until every delivery has given up (state, not time; the suite's timeout bounds it).
    const failed = async () => (await server.api<unknown[]>(`/iot/developers/apps/${created.body.id}/deliveries.json?limit=100&status=failed`)).body.length;
    while ((await failed()) < uplinks.length) await new Promise((resolve) => setTimeout(resolve, 100));

    browser = await launchChromium();
    ({ page, errors: pageErrors } = await openDashboard(browser, server.url));
    page.setDefaultTimeout(60_000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, `${server.url}/`);
    await heading('Overview').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('lands on the overview: counts that match the seeded fleet, uplinks per hour, latest alerts and problems, each a link', async () => {
    // The API calls of the reloaded page only, from its navigation until its figures show: the
    // page opened before may refresh itself just before the reload on a slow machine.
    let requests: string[] | undefined;
    const record = (request: Request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) requests = [];
      else if (new URL(request.url()).pathname.startsWith('/iot/')) requests?.push(new URL(request.url()).pathname);
    };
    page.on('request', record);
    const before = Date.now();
    await page.reload();
    await heading('Overview').waitFor();
    await figure('Modules').getByText(fmt(FLEET)).waitFor();
    page.off('request', record);
    const after = Date.now();
    // One call answers the page (besides the session check and the live stream).
    expect((requests ?? []).filter((path) => path !== '/iot/developers/session.json' && path !== '/iot/developers/stream')).toEqual(['/iot/developers/overview.json']);
    // Seeded a minute apart: the server counted at some moment between before and after.
    const seenAt = (t: number) => fleet.filter((m) => m.lastseen !== null && m.lastseen >= t - 86_400_000).length;
    expect([fmt(seenAt(after)), fmt(seenAt(before))]).toContain(await figure('Seen in the last 24 h').textContent());
    expect(await figure('Open alerts').textContent()).toBe(fmt(fleet.filter((m) => m.alert).length + 1));
    expect(await figure('Failed deliveries').textContent()).toBe(fmt(uplinks.length));
    expect(await figure('Battery low').textContent()).toBe(fmt(fleet.filter((m) => m.battery === 'OFF').length));
    expect(await figure('Never seen').textContent()).toBe(fmt(fleet.filter((m) => m.lastseen === null).length));
    // The window is the 24 hours up to the server's current one: the hour of before or of after.
    const inWindow = (t: number) => [...BACKGROUND.map((r) => r.time), ...uplinks.map((u) => u.time)].filter((s) => s >= (Math.floor(t / 3_600_000) - 23) * 3600).length;
    await page.locator('[aria-labelledby="overview-uplinks"] canvas').first().waitFor();
    expect(await page.locator('[aria-labelledby="overview-uplinks"] [role="img"]').getAttribute('aria-label')).toMatch(new RegExp(`^Uplinks per hour over the last 24 hours: (${fmt(inWindow(before))}|${fmt(inWindow(after))}) in all`));
    expect(await inFirstScreen(page, '[aria-labelledby="overview-uplinks"] canvas')).toBe(true);

    const problems = page.getByRole('region', { name: 'Problems' });
    await problems.getByRole('list', { name: 'Modules out of contact' }).getByRole('link', { name: 'F0000005' }).waitFor();
    await problems.getByRole('list', { name: 'Apps with failed deliveries' }).getByText(`${uplinks.length} failed deliveries`).waitFor();
    await problems.getByText(/ECONNREFUSED|refused/).first().waitFor();
    const latest = page.getByRole('list', { name: 'Latest alerts' });
    expect(await latest.getByRole('listitem').count()).toBe(8);
    await screenshot(page, 'overview', 800);

    await figure('Open alerts').click();
    await page.getByRole('navigation', { name: 'Pages of modules', exact: true }).getByText(`of ${fmt(fleet.filter((m) => m.alert).length + 1)}`).waitFor();
    await page.goBack();
    await problems.getByRole('link', { name: 'Webhook' }).click();
    await heading('Webhook').waitFor();
    await page.goBack();
    await problems.getByRole('link', { name: 'F0000005' }).click();
    await heading('Module F0000005').waitFor();
  });

  it('the module page’s first screen holds the state and the chart at 1280×800', async () => {
    await page.goto(`${server.url}/modules/${MODULE}`);
    await heading(`Module ${MODULE}`).waitFor();
    const signal = page.locator('[data-state="signal"]');
    // The newest uplink reported no RSSI: a dash, never 0 dBm.
    await signal.getByText('RSSI —').waitFor();
    await signal.getByText('1 station').waitFor();
    await page.locator('[data-state="battery"]').getByText(/\d\.\d\d V/).waitFor();
    await page.getByRole('list', { name: 'Open alerts' }).or(page.getByText('No open alert.')).first().waitFor();
    const chart = page.locator('[aria-labelledby="module-chart"] [role="img"]');
    await page.locator('[aria-labelledby="module-chart"] canvas').first().waitFor();
    // 30 keep-alives; the two lost uplinks break the line once.
    expect(await chart.getAttribute('aria-label')).toMatch(/^Keep-alives of F0000003: 30 readings, voltage 3\.\d\d to 3\.\d\d V, temperature .*the line breaks at 1 gap where messages were lost\.$/);
    await screenshot(page, 'module-first-screen', 800);
    for (const selector of ['[data-state="lastseen"]', '[data-state="signal"]', '[aria-labelledby="module-chart"] canvas']) {
      expect(await inFirstScreen(page, selector), selector).toBe(true);
    }
    // Labels with units, apart from the wire keys; the missing RSSI in the table too.
    const newest = page.locator('table.messages tbody tr').first();
    await newest.getByText('Voltage', { exact: true }).waitFor();
    await newest.getByText(/^\d\.\d\d V$/).waitFor();
    expect(await page.locator('table.messages').getByText('voltage_mv').count()).toBe(0);
    expect(await newest.locator('td[data-label="Signal"]').textContent()).toBe('—');
    expect(await page.locator('table.messages').getByText('0 dBm', { exact: true }).count()).toBe(0);
    // The signal chart: RSSI and SNR over time.
    await page.locator('[aria-labelledby="module-signal"] canvas').first().waitFor();
    expect(await page.locator('[aria-labelledby="module-signal"] [role="img"]').getAttribute('aria-label')).toMatch(/^Signal of the last 30 uplinks of F0000003: RSSI -119 dBm to -100 dBm, heard by 1 to 1 stations; breaks where uplinks were lost\.$/);
    // A tooltip follows the cursor over the chart.
    const canvas = page.locator('[aria-labelledby="module-chart"] .u-over');
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.locator('[aria-labelledby="module-chart"] .chart-tip').getByText(/^Voltage: \d\.\d\d V$/).waitFor();
    await screenshot(page, 'module-first-screen', 800);
    await screenshot(page, 'module-page');
  });

  it('pages the history with Older and Newer', async () => {
    const rows = page.locator('table.messages tbody tr');
    const when = () => rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-when'))));
    await expect.poll(() => rows.count()).toBe(25);
    const first = await when();
    const pager = page.getByRole('navigation', { name: 'Pages of messages' });
    await pager.getByRole('button', { name: 'Older messages →' }).click();
    await pager.getByText('Page 2').waitFor();
    await expect.poll(() => rows.count()).toBe(5);
    const second = await when();
    expect(Math.max(...second)).toBeLessThan(Math.min(...first));
    expect([...first, ...second]).toEqual([...first, ...second].sort((a, b) => b - a));
    expect(await pager.getByRole('button', { name: 'Older messages →' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: '← Newer messages' }).click();
    await pager.getByText('Page 1').waitFor();
    await expect.poll(when).toEqual(first);
  });

  it('downloads the history as CSV and sets the retention', async () => {
    const downloading = page.waitForEvent('download');
    await page.getByRole('region', { name: 'Download' }).getByRole('link', { name: 'Download CSV' }).click();
    const download = await downloading;
    const csv = readFileSync((await download.path())!, 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^time,serial,type,/);
    expect(csv[0]).toMatch(/volt/i);
    expect(csv.length - 1).toBe(30);
    expect(csv.slice(1).every((line) => line.split(',')[1] === MODULE)).toBe(true);

    const retention = page.getByRole('form', { name: `Retention of ${MODULE}` });
    await retention.getByText(/Now kept/).first().waitFor();
    await retention.getByLabel('Messages (days)').fill('30');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    await retention.getByRole('status').filter({ hasText: `Retention of ${MODULE} saved.` }).waitFor();
    await retention.getByText('Now kept 30 days.').waitFor();
    const saved = await server.api<{ messages_days: number | null; raw_days: number | null }>(`/iot/developers/modules/retention.json?sn=${MODULE}`);
    expect(saved.body).toMatchObject({ messages_days: 30, raw_days: null });
  });

  it('acknowledges an open alert on the module page', async () => {
    const serial = fleet[12]!.serial; // i = 13: an open alert
    await page.goto(`${server.url}/modules/${serial}`);
    await heading(`Module ${serial}`).waitFor();
    const open = page.getByRole('list', { name: 'Open alerts' });
    await open.getByRole('button', { name: /^Acknowledge alert/ }).click();
    await open.getByText('· acknowledged').waitFor();
    const alerts = await server.api<{ acked: number | null }[]>(`/iot/developers/alerts.json?sn=${serial}&open=true`);
    expect(alerts.body.map((a) => a.acked !== null)).toEqual([true]);
  });

  it('at 390 px the overview and the module page fit the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/`);
      await figure('Modules').getByText(fmt(FLEET)).waitFor();
      await page.locator('[aria-labelledby="overview-uplinks"] canvas').first().waitFor();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, 'overview-phone', 1800);
      await page.goto(`${server.url}/modules/${MODULE}`);
      await page.locator('[aria-labelledby="module-chart"] canvas').first().waitFor();
      await page.locator('table.messages tbody tr').first().waitFor();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, 'module-phone', 1800);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
