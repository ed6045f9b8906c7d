import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORK_TOKEN, chromiumAvailable, launchChromium, openDashboard, signIn, startServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

const run = chromiumAvailable();
const json = { 'content-type': 'application/json' };

describe.skipIf(!run)("retention on the app and module pages, and the raw download, in Chromium", { timeout: 120_000 }, () => {
  let server: RunningSnsr;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  let appId = 0;
  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });

  beforeAll(async () => {
    server = await startServer({ SNSR_MAX_EVENT_LOOP_DELAY_MS: '0', SNSR_RETENTION_RAW_DAYS: '30' });
    await server.api('/iot/developers/modules.json', { method: 'POST', headers: json, body: JSON.stringify([{ serial: 'C0FE', key: '1A2B3C4D' }]) });
    appId = (await server.api<{ id: number }>('/iot/developers/apps.json', { method: 'POST', headers: json, body: JSON.stringify({ name: 'Archive' }) })).body.id;
    await server.api(`/iot/developers/apps/${appId}/modules/attach.json`, { method: 'POST', headers: json, body: JSON.stringify({ serials: ['C0FE'] }) });
    // One uplink heard by two stations.
    for (const [station, rssi] of [['0A1B', -125.5], ['1B2C', -110]] as const) {
      const answer = await fetch(`${server.url}/network/sigfox/uplink`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${NETWORK_TOKEN}` },
        body: JSON.stringify({ device: 'C0FE', time: 1_795_000_000, data: '000300189167', seqNumber: 7, station, rssi, snr: 10 }),
      });
      expect(answer.status).toBe(200);
    }
    browser = await launchChromium();
    ({ page, errors: pageErrors } = await openDashboard(browser, server.url));
    page.setDefaultTimeout(60_000);
    await signIn(page, `${server.url}/apps/${appId}`);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("sets an app's retention on its page", async () => {
    await heading('Archive').waitFor();
    const form = page.getByRole('form', { name: 'Retention of app “Archive”' });
    await form.getByText("No choice: its modules follow the operator's default (kept 30 days).").waitFor();
    await form.getByLabel('Messages (days)').fill('365');
    await form.getByLabel('Raw uplinks and station reports (days)').fill('0');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await form.getByRole('status').filter({ hasText: 'Retention of app “Archive” saved.' }).waitFor();
    await form.getByText('Modules without their own choice: kept forever, unless another of their apps keeps longer.').waitFor();
    const saved = await server.api(`/iot/developers/apps/retention.json?idApp=${appId}`);
    expect(saved.body).toMatchObject({ messages_days: 365, raw_days: 0 });
  });

  it('shows on the module page what is in force and which app it comes from, and downloads the raw uplinks', async () => {
    await page.goto(`${server.url}/modules/C0FE`);
    await heading('Module C0FE').waitFor();
    const form = page.getByRole('form', { name: 'Retention of C0FE' });
    await form.getByText("Now kept 365 days (app “Archive”, the longest choice of the module's apps).").waitFor();
    await form.getByText("Now kept forever (app “Archive”, the longest choice of the module's apps).").waitFor();

    const download = page.getByRole('region', { name: 'Download' });
    await download.getByLabel('What').selectOption('raw');
    const downloading = page.waitForEvent('download');
    await download.getByRole('link', { name: 'Download CSV' }).click();
    const csv = readFileSync((await (await downloading).path())!, 'utf8').trim().split('\r\n');
    expect(csv).toEqual(['time,serial,seq,data,stations (station:rssi dBm:snr dB;…)', '2026-11-18T11:06:40.000Z,C0FE,7,000300189167,0A1B:-125.5:10;1B2C:-110:10']);
    expect(pageErrors).toEqual([]);
  });
});
