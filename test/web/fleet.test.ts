import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetModule } from '../helpers/fleet.js';
import { chromiumAvailable, launchChromium, openDashboard, screenshot, signIn, startFleetServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

const FLEET = 10_000;
const now = Date.now();
const fleet = Array.from({ length: FLEET }, (_, k) => fleetModule(k + 1, now));
const run = chromiumAvailable();

/** The page is wider than the screen: something would be cut off or need sideways scrolling. */
const OVERFLOW = `document.documentElement.scrollWidth - document.documentElement.clientWidth`;

describe.skipIf(!run)('the dashboard with a fleet of 10,000 modules, in Chromium', { timeout: 120_000 }, () => {
  let server: RunningSnsr;
  let browser: Browser;
  let page: Page;
  let pageErrors: string[] = [];
  const apiRequests: string[] = [];

  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const rows = () => page.locator('table.modules tbody tr');
  const serialsShown = () => page.locator('table.modules tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-serial')));
  const pager = () => page.getByRole('navigation', { name: 'Pages of modules', exact: true });

  beforeAll(async () => {
    // Seeded straight into the server's database: 10,000 registrations through HTTP would test nothing more.
    server = await startFleetServer(FLEET, now);
    browser = await launchChromium();
    ({ page, errors: pageErrors } = await openDashboard(browser, server.url));
    // Waits are on state, never on time; a loaded 2-core machine may take long to reach it.
    page.setDefaultTimeout(60_000);
    page.on('request', (request: Request) => {
      if (new URL(request.url()).pathname.startsWith('/iot/')) apiRequests.push(new URL(request.url()).pathname);
    });
    await signIn(page, `${server.url}/account`);
    await heading('My Account').waitFor();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('shows the first page of the list with a handful of requests, newest first, on a page of normal height', async () => {
    apiRequests.length = 0;
    await page.goto(`${server.url}/modules`);
    await pager().getByText('1–50 of 10,000').waitFor();
    expect(await rows().count()).toBe(50);
    const newest = [...fleet].sort((a, b) => (b.lastseen ?? 0) - (a.lastseen ?? 0) || a.serial.localeCompare(b.serial));
    expect(await serialsShown()).toEqual(newest.slice(0, 50).map((m) => m.serial));
    // Session check and one list call: not one call per module.
    expect(apiRequests.length).toBeLessThanOrEqual(4);
    expect(apiRequests.filter((path) => path.endsWith('/device.json'))).toEqual([]);
    const row = page.locator('tr[data-serial="F0000001"]');
    await row.getByText(fleet[0]!.name!, { exact: true }).waitFor();
    await row.getByRole('button', { name: 'building-b' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollHeight')).toBeLessThan(12_000);
    await screenshot(page, 'modules-fleet', 1400);
  });

  it('searches by name, serial and tag, with the search in the URL', async () => {
    apiRequests.length = 0;
    await page.getByLabel('Search modules').fill('pump 99');
    const pumps = fleet.filter((m) => m.name?.toLowerCase().includes('pump 99'));
    await pager().getByText(`of ${pumps.length}`).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('pump 99');
    // Typing is debounced: one request for the whole word, not one per key.
    expect(apiRequests.filter((path) => path.endsWith('/modules/list.json')).length).toBeLessThanOrEqual(3);
    await page.getByLabel('Search modules').fill('f00000a');
    await pager().getByText(`of ${fleet.filter((m) => m.serial.startsWith('F00000A')).length}`).waitFor();
    await page.locator('tr[data-serial="F00000A0"]').waitFor();
    // A tag is a link to its modules.
    await page.locator('tr[data-serial="F00000A1"]').getByRole('button', { name: 'building-b' }).click();
    await pager().getByText(`of ${fleet.filter((m) => m.tags.includes('building-b')).length.toLocaleString('en-US')}`).waitFor();
    await page.getByLabel('Search modules').fill('no such module');
    await page.getByText('No module matches.').waitFor();
    await page.getByLabel('Search modules').fill('');
    await pager().getByText('of 10,000').waitFor();
  });

  it('sorts by alerts, battery and name; filters; pages forward and back', async () => {
    await page.getByLabel('Sort by').selectOption('alerts');
    await expect.poll(() => page.locator('table.modules tbody tr').first().getByText(/1 open/).count()).toBe(1);
    await page.getByLabel('Sort by').selectOption('battery');
    await expect.poll(async () => (await serialsShown())[0]).toBe(fleet.filter((m) => m.battery === 'OFF').sort((a, b) => (b.lastseen ?? 0) - (a.lastseen ?? 0))[0]?.serial ?? 'x');
    await page.locator('table.modules tbody tr').first().getByText('Battery low').waitFor();
    await page.getByLabel('Sort by').selectOption('name');
    const byName = fleet.filter((m) => m.name !== null).sort((a, b) => (a.name!.toLowerCase() < b.name!.toLowerCase() ? -1 : a.name!.toLowerCase() > b.name!.toLowerCase() ? 1 : 0));
    await expect.poll(async () => (await serialsShown())[0]).toBe(byName[0]!.serial);
    await page.getByLabel('Filter').selectOption('never-seen');
    await pager().getByText(`of ${fleet.filter((m) => m.lastseen === null).length.toLocaleString('en-US')}`).waitFor();
    await page.getByLabel('Filter').selectOption('');
    await page.getByLabel('Sort by').selectOption('lastseen');
    await expect.poll(() => new URL(page.url()).search).toBe('');
    await pager().getByText('1–50 of 10,000').waitFor();
    await pager().getByRole('button', { name: 'Next' }).click();
    await pager().getByText('51–100 of 10,000').waitFor();
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    await pager().getByRole('button', { name: 'Previous' }).click();
    await pager().getByText('1–50 of 10,000').waitFor();
  });

  it('the attach picker searches and attaches every module that matches', async () => {
    const created = await server.api<{ id: string }>('/iot/developers/apps.json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Cold rooms' }),
    });
    const appId = created.body.id;
    await page.goto(`${server.url}/apps/${appId}`);
    await heading('Cold rooms').waitFor();
    await page.getByText('No module is attached').waitFor();
    // A page of the modules, never the whole fleet as checkboxes.
    await page.getByRole('navigation', { name: 'Pages of modules to attach' }).getByText('1–20 of 10,000').waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(20);
    await page.getByLabel('Search modules to attach').fill('cold');
    const cold = fleet.filter((m) => m.tags.includes('cold')).length;
    await page.getByRole('button', { name: `Attach all ${cold.toLocaleString('en-US')} matching` }).click();
    await status(`Attached ${cold.toLocaleString('en-US')} modules.`).waitFor();
    await page.getByRole('navigation', { name: 'Pages of attached modules' }).getByText(`of ${cold.toLocaleString('en-US')}`).waitFor();
    const listed = await server.api<{ total: number }>(`/iot/developers/modules/list.json?app=${appId}&limit=1`);
    expect(listed.body.total).toBe(cold);
    await page.getByText('No other module matches.').waitFor();
    await screenshot(page, 'app-picker-fleet', 1400);
  });

  it('names, tags and annotates a module and a child on the module page; the list finds them', async () => {
    await page.goto(`${server.url}/modules/F0000011`);
    await heading('Module F0000011').waitFor();
    await page.getByRole('region', { name: 'Name, tags and notes' }).getByText(fleet[16]!.name!).waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Name of F0000011', { exact: true }).fill('Cold store pump');
    await page.getByLabel('Tags of F0000011', { exact: true }).fill('cold-store, Pumps');
    await page.getByLabel('Notes on F0000011', { exact: true }).fill('service in March');
    await page.getByRole('form', { name: 'Name, tags and notes of F0000011', exact: true }).getByRole('button', { name: 'Save' }).click();
    await status('Saved F0000011.').waitFor();
    await page.getByLabel('Name of F0000011/2', { exact: true }).fill('North probe');
    await page.getByRole('form', { name: 'Name, tags and notes of F0000011/2' }).getByRole('button', { name: 'Save' }).click();
    await status('Saved F0000011/2.').waitFor();
    await screenshot(page, 'module-labels', 1400);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('region', { name: 'Name, tags and notes' }).getByText('Cold store pump').waitFor();
    const labels = await server.api<{ serial: string; name: string | null; tags: string[] }[]>('/iot/developers/labels.json?sn=F0000011');
    expect(labels.body.map((l) => [l.serial, l.name, l.tags])).toEqual([
      ['F0000011', 'Cold store pump', ['cold-store', 'pumps']],
      ['F0000011/1', 'Probe 17.1', ['probe']],
      ['F0000011/2', 'North probe', ['probe']],
    ]);
    await page.goto(`${server.url}/modules?q=north%20probe`);
    await pager().getByText('1–1 of 1').waitFor();
    await page.locator('tr[data-serial="F0000011"]').getByText('Cold store pump').waitFor();
  });

  it('the decoder takes 0x, spaces and either case, and an error clears the previous result', async () => {
    await page.goto(`${server.url}/decoder`);
    await heading('Decoder').waitFor();
    await page.getByLabel('Frame (hex)').fill('0X12 01 01 29 fa 2A e8 07 74 70');
    await page.getByRole('button', { name: 'Decode' }).click();
    await page.getByRole('region', { name: 'Decoded' }).getByText('Valid UDM23 frame').waitFor();
    expect(new URL(page.url()).searchParams.get('frame')).toBe('12010129FA2AE8077470');
    await page.getByLabel('Frame (hex)').fill('0x02 zz');
    await page.getByRole('button', { name: 'Decode' }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter the frame as hexadecimal digits' }).waitFor();
    expect(await page.getByRole('region', { name: 'Decoded' }).count()).toBe(0);
  });

  it('at 390 px the module list, the picker and the decoder fit the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [path, name, ready] of [
        ['/modules', 'modules-fleet-phone', () => pager().getByText('1–50 of 10,000').waitFor()],
        ['/apps', 'apps-fleet-phone', () => page.getByRole('link', { name: 'Cold rooms' }).waitFor()],
        ['/decoder?frame=00010100202AC5B3FC801118&protocol=UDM23', 'decoder-phone', () => page.getByRole('region', { name: 'Field by field' }).waitFor()],
      ] as const) {
        await page.goto(`${server.url}${path}`);
        await ready();
        expect(await page.evaluate<number>(OVERFLOW), path).toBeLessThanOrEqual(0);
        await screenshot(page, name, 1600);
      }
      expect(pageErrors).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
