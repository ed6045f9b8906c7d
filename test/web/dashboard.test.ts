import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server as HttpServer } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snsr } from '../helpers/cli.js';
import { EMAIL, NETWORK_TOKEN, PASSWORD, chromiumAvailable, closedPort, launchChromium, openDashboard, screenshot, startServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

interface Device {
  id: string;
  serial: string;
  active: boolean;
  watched: boolean;
  status: string;
  bidirval?: string;
}
interface Message {
  when: number;
  type: string;
  device: string;
}
interface Delivery {
  id: number;
  uuid: string;
  status: string;
  attempts: number;
}

// Code run inside the page is passed as text: this Node test program has no DOM typings.

/** Visible controls without an accessible name (label, aria-label, aria-labelledby or text). */
const UNLABELLED = `[...document.querySelectorAll('input, select, textarea, button, a[href]')]
  .filter((el) => el.getClientRects().length > 0 && el.getAttribute('aria-hidden') !== 'true')
  .filter((el) => {
    const labelledBy = el.getAttribute('aria-labelledby');
    const labels = [...(el.labels ?? [])].map((l) => l.textContent).join('');
    const text = el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent : '';
    return [el.getAttribute('aria-label'), labelledBy && document.getElementById(labelledBy)?.textContent, labels, text].join('').trim() === '';
  })
  .map((el) => el.outerHTML.slice(0, 160))`;
const unlabelledControls = (page: Page) => page.evaluate<string[]>(UNLABELLED);

/** The label text of the focused control, or its text for a link or button. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  return (el.id && document.querySelector('label[for="' + el.id + '"]')?.textContent) || el.textContent;
})()`;

const run = chromiumAvailable();

describe.skipIf(!run)('the dashboard in Chromium, against the built server', () => {
  let server: RunningSnsr;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let callbackPort: number;
  let appId: number;
  let pageErrors: string[] = [];
  let password = PASSWORD;

  const open = async (path: string) => {
    await page.goto(`${server.url}${path}`);
  };
  const heading = (name: string) => page.getByRole('heading', { name, exact: true, level: 1 });
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });
  const signIn = async (target: Page, secret: string) => {
    await target.getByLabel('Email').fill(EMAIL);
    await target.getByLabel('Password').fill(secret);
    await target.getByRole('button', { name: 'Sign in' }).click();
  };

  beforeAll(async () => {
    callbackPort = await closedPort();
    server = await startServer();
    browser = await launchChromium();
    ({ context, page, errors: pageErrors } = await openDashboard(browser, server.url));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in with email and password; the session survives a reload but not a new browser', async () => {
    await open('/');
    await page.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
    await screenshot(page, 'sign-in');

    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'There is no developer account with this email' }).waitFor();
    await signIn(page, 'Wrong123');
    await page.getByRole('alert').filter({ hasText: 'The password is not right' }).waitFor();

    await signIn(page, PASSWORD);
    // The overview is the landing page.
    await heading('Overview').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    // A new account's overview says where to start.
    await page.getByRole('link', { name: 'register them on the Modules page' }).waitFor();
    // The session is an HttpOnly cookie: the page can read neither it nor any stored credential.
    const cookies = await context.cookies(server.url);
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['snsr_session', true, 'Strict']]);
    expect(await page.evaluate<string>('document.cookie')).toBe('');
    expect(await page.evaluate<number>('sessionStorage.length + localStorage.length')).toBe(0);
    await page.reload();
    await heading('Overview').waitFor();

    const other = await browser.newContext();
    const fresh = await other.newPage();
    await fresh.goto(`${server.url}/account`);
    await fresh.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
    // Signing in on a deep link lands on that page.
    await signIn(fresh, PASSWORD);
    await fresh.getByRole('heading', { name: 'My Account', level: 1 }).waitFor();
    await other.close();
    await page.getByRole('link', { name: 'My Account' }).click();
    await heading('My Account').waitFor();
  }, 60_000);

  it('My Account: copies the token, regenerates it, saves the git alias, changes the password with the policy shown', async () => {
    const token = page.getByRole('textbox', { name: 'Account token', exact: true });
    expect(await token.inputValue()).not.toBe(server.token);
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await token.inputValue()).toBe(server.token);
    await page.getByRole('button', { name: 'Copy account token' }).click();
    await page.getByRole('button', { name: 'Copy account token' }).filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(server.token);
    await screenshot(page, 'account');

    await page.getByRole('button', { name: 'Regenerate token' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The current token stops working').waitFor();
    await dialog.getByRole('button', { name: 'Regenerate token' }).click();
    await status('A new token was generated').waitFor();
    const regenerated = await token.inputValue();
    expect(regenerated).not.toBe(server.token);
    expect((await server.api('/iot/developers/account.json', { auth: `Basic ${server.token}` })).status).toBe(401);
    expect((await server.api('/iot/developers/account.json', { auth: `Basic ${regenerated}` })).status).toBe(200);
    // The session is not the token: the dashboard goes on after a regeneration.
    await page.reload();
    await heading('My Account').waitFor();

    await page.getByRole('textbox', { name: 'Git alias' }).fill('dev-alias');
    await page.getByRole('button', { name: 'Save alias' }).click();
    await status('Git alias saved.').waitFor();
    expect((await server.api<{ gitAlias: string }>('/iot/developers/account.json')).body.gitAlias).toBe('dev-alias');

    // A wrong current password is said at the field; the user stays signed in.
    await page.getByLabel('Current password').fill('Wrong999');
    await page.getByLabel('New password', { exact: true }).fill('NewSecret456');
    await page.getByLabel('Confirm new password').fill('NewSecret456');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This is not your current password.').waitFor();
    expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('alert').filter({ hasText: 'the current password is not right' }).waitFor();
    await heading('My Account').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await screenshot(page, 'account-wrong-password', 1800);

    const rules = page.getByRole('list', { name: 'Password rules' });
    await page.getByLabel('Current password').fill(PASSWORD);
    expect(await page.getByLabel('Current password').getAttribute('aria-invalid')).toBeNull();
    await page.getByLabel('New password', { exact: true }).fill('abc');
    await rules.getByText('At least 6 characters: not met yet').waitFor();
    await rules.getByText('A lower-case letter: met').waitFor();
    await rules.getByText('An upper-case letter: not met yet').waitFor();
    await page.getByLabel('Confirm new password').fill('abc');
    await rules.getByText('Confirmation matches: met').waitFor();
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'does not follow the rules yet' }).waitFor();
    password = 'NewSecret456';
    await page.getByLabel('New password', { exact: true }).fill(password);
    await page.getByLabel('Confirm new password').fill(password);
    expect(await rules.getByText(': not met yet').count()).toBe(0);
    await page.getByRole('button', { name: 'Change password' }).click();
    await status('Password changed.').waitFor();
    expect((await server.api('/iot/developers/account.json')).status).toBe(401);
    server.setPassword(password);
    expect((await server.api('/iot/developers/account.json')).status).toBe(200);
  }, 60_000);

  it('creates an app with a callback URL and reveals its secret on demand', async () => {
    await page.getByRole('link', { name: 'Apps' }).click();
    await heading('Apps').waitFor();
    await page.getByText('No app yet').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Greenhouse');
    await page.getByLabel('Description').fill('Frost alerts for the greenhouse sensors');
    await page.getByLabel('Callback URL').fill(`http://127.0.0.1:${callbackPort}/snsr`);
    await page.getByRole('button', { name: 'Create app' }).click();
    await heading('Greenhouse').waitFor();

    const apps = (await server.api<{ id: number; secret: string; callbackurl: string }[]>('/iot/developers/apps.json')).body;
    expect(apps).toHaveLength(1);
    appId = apps[0]!.id;
    expect(apps[0]!.callbackurl).toBe(`http://127.0.0.1:${callbackPort}/snsr`);
    expect(new URL(page.url()).pathname).toBe(`/apps/${appId}`);
    await expect(page.getByText(apps[0]!.secret).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    await page.getByText(apps[0]!.secret).waitFor();
    await page.getByRole('button', { name: 'Hide secret' }).click();

    await page.getByLabel('Description').fill('Frost alerts');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await status('App saved.').waitFor();
    expect((await server.api<{ description: string }[]>('/iot/developers/apps.json')).body[0]!.description).toBe('Frost alerts');

    await page.getByRole('link', { name: 'All apps' }).click();
    await page.getByRole('link', { name: 'Greenhouse' }).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'apps');
  }, 60_000);

  it('registers several modules at once, shows the four result lists, exports the PACs and unregisters', async () => {
    await page.getByRole('link', { name: 'Modules' }).click();
    await heading('Modules').waitFor();
    const lines = page.getByLabel('Modules, one per line: serial and key');
    await lines.fill('C0FE 1A2B3C4D\nBEEF;FEDCBA9876543210\nDEAD 12345678\n0ACE 11111111');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    const result = (field: string) => page.locator(`[data-result="${field}"] li`).allTextContents();
    await page.locator('[data-result="registered"] li').first().waitFor();
    expect(await result('registered')).toEqual(['C0FE', 'BEEF']);
    expect(await result('not_found')).toEqual(['DEAD']);
    expect(await result('invalid_key')).toEqual(['0ACE']);
    expect(await result('already_registered')).toEqual([]);
    // Lines that did not register stay, to be corrected.
    expect(await lines.inputValue()).toBe('DEAD 12345678\n0ACE 11111111');

    await lines.fill('C0FE 1a2b3c4d\n0ACE 0000ACE0');
    await page.getByRole('button', { name: 'Register', exact: true }).click();
    await page.locator('[data-result="already_registered"] li').first().waitFor();
    expect(await result('already_registered')).toEqual(['C0FE']);
    expect(await result('registered')).toEqual(['0ACE']);

    const rows = page.locator('table.modules tbody tr');
    await page.locator('tr[data-serial="0ACE"]').waitFor();
    expect(await rows.count()).toBe(3);
    await page.locator('tr[data-serial="C0FE"]').getByText('No battery event', { exact: true }).waitFor();
    await page.locator('tr[data-serial="C0FE"]').getByText('UDM23').waitFor();
    await page.locator('tr[data-serial="BEEF"]').getByText('UDM22').waitFor();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export PACs (CSV)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('pacs.csv');
    const csv = readFileSync((await file.path())!, 'utf8');
    expect(csv.split('\n')[0]).toBe('SERIAL; PAC');
    expect(csv).toContain('C0FE; 0123456789ABCDEF');
    expect(csv).toContain('BEEF; FEDCBA9876543210');

    await page.getByRole('button', { name: 'Unregister 0ACE' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unregister' }).click();
    await status('0ACE unregistered.').waitFor();
    await expect.poll(() => rows.count()).toBe(2);
    const modules = (await server.api<{ serial: string }[]>('/iot/developers/modules.json')).body.map((m) => m.serial).sort();
    expect(modules).toEqual(['BEEF', 'C0FE']);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'modules');
  }, 60_000);

  it('attaches modules to the app and detaches one', async () => {
    await open(`/apps/${appId}`);
    await heading('Greenhouse').waitFor();
    await page.getByText('No module is attached').waitFor();
    await page.getByRole('checkbox', { name: 'C0FE' }).check();
    await page.getByRole('checkbox', { name: 'BEEF' }).check();
    await page.getByRole('button', { name: 'Attach selected' }).click();
    await status('Attached C0FE, BEEF.').waitFor();
    await page.getByRole('button', { name: 'Detach BEEF' }).click();
    await status('Detached BEEF.').waitFor();
    await page.getByRole('checkbox', { name: 'BEEF' }).waitFor();
    const attached = (await server.api<{ serial: string }[]>(`/iot/developers/apps/${appId}/modules.json`)).body;
    expect(attached.map((m) => m.serial)).toEqual(['C0FE']);
  }, 60_000);

  it('shows messages from `snsr simulate` as they arrive, with the keep-alive chart', async () => {
    await page.getByRole('list', { name: 'Attached modules' }).getByRole('link', { name: 'C0FE' }).click();
    await heading('Module C0FE').waitFor();
    await page.getByText('No message yet').waitFor();

    // A day of hourly keep-alives first, as the network would have sent them, for the chart.
    const now = Math.floor(Date.now() / 1000);
    const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase();
    for (let hour = 24; hour >= 1; hour--) {
      const volts = 0x91 - Math.floor((24 - hour) / 6); // 3300 mV, slowly down
      const celsius = 0x64 + Math.round(8 * Math.sin(((24 - hour) / 24) * 2 * Math.PI)); // 20 °C ± 4
      const uplink = { device: 'C0FE', time: now - hour * 3600, data: `${hex((24 - hour) & 15)}030018${hex(volts)}${hex(celsius)}`, seqNumber: 1000 + (24 - hour), station: '0A1B', rssi: -112, snr: 14 };
      const response = await fetch(`${server.url}/network/sigfox/uplink`, {
        method: 'POST',
        headers: { authorization: `Bearer ${NETWORK_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(uplink),
      });
      expect(response.status).toBe(200);
    }
    await page.reload();
    await heading('Module C0FE').waitFor();
    await expect.poll(() => page.locator('table.messages tbody tr').count()).toBe(24);
    await page.locator('.chart canvas').first().waitFor();

    const simulation = snsr(['simulate', '--url', server.url, '--modules', 'C0FE', '--rate', '12', '--uplinks', '24', '--seed', '7', '--quiet'], { SNSR_NETWORK_TOKEN: NETWORK_TOKEN });
    // Live: rows appear without a reload, marked new.
    await page.locator('table.messages tbody tr.fresh').first().waitFor({ timeout: 20_000 });
    const simulated = await simulation;
    expect(simulated.code, simulated.stderr).toBe(0);

    const history = (await server.api<Message[]>('/iot/devices/msgs/history.json?sn=C0FE&amount=1000')).body;
    expect(history.length).toBeGreaterThan(5);
    const rows = page.locator('table.messages tbody tr');
    // The 24 keep-alives fit one page; everything simulate sent was added live.
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(history.length);
    expect(await page.locator('table.messages tbody tr.fresh').count()).toBe(history.length - 24);
    // The same messages, newest first (messages of the same second may come in either order).
    const when = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-when'))));
    const types = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')));
    expect(when).toEqual(history.map((m) => m.when));
    expect(when.map((w, i) => `${w} ${types[i]}`).sort()).toEqual(history.map((m) => `${m.when} ${m.type}`).sort());

    // The device state follows the messages: counters and last seen.
    const device = (await server.api<Device & { msgs: number; lastseen: string }>('/iot/developers/device.json?sn=C0FE')).body;
    await page.locator('[data-device="C0FE"]').getByText(device.lastseen).first().waitFor();

    const keepalives = history.filter((m) => m.type.startsWith('keepalive:') && m.device === 'C0FE').length;
    expect(keepalives).toBeGreaterThan(0);
    await page.locator('.chart canvas').first().waitFor();
    await expect
      .poll(() => page.locator('[aria-labelledby="module-chart"] [role="img"]').getAttribute('aria-label'), { timeout: 10_000 })
      .toMatch(new RegExp(`^Keep-alives of C0FE: ${keepalives} readings, voltage [\\d.]+ to [\\d.]+ V, temperature`));
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'module');
    await screenshot(page, 'module-overview', 1560);
  }, 90_000);

  it('pages through older messages, 25 at a time', async () => {
    const history = (await server.api<Message[]>('/iot/devices/msgs/history.json?sn=C0FE&amount=1000')).body;
    await page.reload();
    await heading('Module C0FE').waitFor();
    const rows = page.locator('table.messages tbody tr');
    const when = () => rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-when'))));
    expect(history.length).toBeGreaterThan(25);
    await expect.poll(() => rows.count()).toBe(25);
    const pager = page.getByRole('navigation', { name: 'Pages of messages' });
    const older = pager.getByRole('button', { name: 'Older messages →' });
    // Page after page, each waited for, until the oldest message: together the history, newest first.
    const seen: number[] = [...(await when())];
    for (let number = 2; !(await older.isDisabled()); number++) {
      await older.click();
      await pager.getByText(`Page ${number}`).waitFor();
      await expect.poll(async () => (await when())[0]).toBeLessThan(seen.at(-1)!);
      seen.push(...(await when()));
    }
    expect(seen).toEqual(history.map((m) => m.when));
    await pager.getByRole('button', { name: '← Newer messages' }).click();
    await expect.poll(async () => (await when()).at(-1)).toBeGreaterThan(seen.at(-1)!);
  }, 60_000);

  it('sets the flags of a device: active and watched (also from the keyboard), status and bidir value', async () => {
    const card = page.locator('[data-device="C0FE"]');
    const device = async () => (await server.api<Device>('/iot/developers/device.json?sn=C0FE')).body;

    await card.getByRole('switch', { name: 'Watched' }).click();
    await card.getByRole('status').filter({ hasText: 'C0FE is now watched.' }).waitFor();
    expect((await device()).watched).toBe(true);
    await page.getByRole('list', { name: 'Status of C0FE' }).getByText('Watched', { exact: true }).waitFor();

    await card.getByRole('switch', { name: 'Active' }).focus();
    await page.keyboard.press('Space');
    await card.getByRole('status').filter({ hasText: 'C0FE is now inactive.' }).waitFor();
    expect((await device()).active).toBe(false);
    await page.getByRole('list', { name: 'Status of C0FE' }).getByText('Inactive', { exact: true }).waitFor();
    await page.keyboard.press('Space');
    await card.getByRole('status').filter({ hasText: 'C0FE is now active.' }).waitFor();
    expect((await device()).active).toBe(true);

    await card.getByLabel('Functional status').fill('in_service');
    await card.getByRole('button', { name: 'Set status' }).click();
    await card.getByRole('status').filter({ hasText: 'Status of C0FE set to IN_SERVICE.' }).waitFor();
    expect((await device()).status).toBe('IN_SERVICE');

    await card.getByLabel('Bidir value').fill('0123456789abcdef');
    await card.getByRole('button', { name: 'Set value' }).click();
    await card.getByRole('status').filter({ hasText: 'Bidir value of C0FE set.' }).waitFor();
    expect((await device()).bidirval).toBe('0123456789ABCDEF');
    await card.getByRole('button', { name: 'Clear' }).click();
    await card.getByRole('status').filter({ hasText: 'Bidir value of C0FE cleared.' }).waitFor();
    expect((await device()).bidirval).toBeUndefined();
  }, 60_000);

  it('decodes a frame with the field-by-field explanation, and opens one from a message', async () => {
    await page.getByRole('link', { name: 'Decoder' }).click();
    await heading('Decoder').waitFor();
    await page.getByLabel('Frame (hex)').fill('25000632');
    await page.getByLabel('Protocol').selectOption('UDM23');
    await page.getByRole('button', { name: 'Decode' }).click();
    const decoded = page.getByRole('region', { name: 'Decoded' });
    await decoded.getByText('event_temp_low', { exact: true }).waitFor();
    await decoded.getByText('-5 °C', { exact: true }).waitFor();
    await decoded.getByText('Valid UDM23 frame', { exact: true }).waitFor();
    const fields = page.getByRole('region', { name: 'Field by field' }).locator('tbody th');
    expect(await fields.allTextContents()).toEqual(expect.arrayContaining(['retry', 'stamp', 'cpt', 'entry_id']));
    expect(new URL(page.url()).search).toBe('?frame=25000632&protocol=UDM23');
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, 'decoder');

    await page.getByLabel('Frame (hex)').fill('0000');
    await page.getByRole('button', { name: 'Decode' }).click();
    await decoded.getByText('Invalid frame', { exact: true }).waitFor();

    // A frame link on the module page opens the decoder on that frame.
    const frame = (await server.api<{ payload: string }[]>('/iot/devices/msgs/history.json?sn=C0FE&amount=1')).body[0]!.payload;
    await open('/modules/C0FE');
    await page.getByRole('link', { name: `Explain frame ${frame}` }).first().click();
    await heading('Decoder').waitFor();
    await decoded.getByText('Valid UDM23 frame', { exact: true }).waitFor();
    expect(await page.getByLabel('Frame (hex)').inputValue()).toBe(frame);
  }, 60_000);

  it('shows failed deliveries, and Retry sends one again', async () => {
    await open(`/apps/${appId}`);
    await heading('Greenhouse').waitFor();
    const failedRows = page.locator('table.deliveries tr[data-status="failed"]');
    await failedRows.first().waitFor({ timeout: 20_000 });
    await failedRows.first().getByText('Failed', { exact: true }).waitFor();
    await failedRows.first().getByText(/ECONNREFUSED|refused/i).waitFor();
    await screenshot(page, 'app');

    // The callback target comes up; one failed delivery is retried from the dashboard.
    const received: IncomingHttpHeaders[] = [];
    const target: HttpServer = createServer((request, response) => {
      received.push(request.headers);
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => target.listen(callbackPort, '127.0.0.1', resolve));
    try {
      const id = Number(await failedRows.first().getAttribute('data-delivery'));
      await page.getByRole('button', { name: `Retry delivery ${id}` }).click();
      const row = page.locator(`tr[data-delivery="${id}"]`);
      await expect.poll(() => row.getAttribute('data-status')).toBe('delivered');
      await row.getByText('Delivered', { exact: true }).waitFor();
      await screenshot(page, 'app-retried');
      const deliveries = (await server.api<Delivery[]>(`/iot/developers/apps/${appId}/deliveries.json?limit=200`)).body;
      const retried = deliveries.find((d) => d.id === id)!;
      expect(retried.status).toBe('delivered');
      expect(received.map((headers) => headers['x-snsr-delivery'])).toEqual([retried.uuid]);
      expect(deliveries.filter((d) => d.status === 'failed').length).toBe(deliveries.length - 1);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }

    await page.getByLabel('Show').selectOption('delivered');
    await expect.poll(() => page.locator('table.deliveries tbody tr').count()).toBe(1);
    expect(await unlabelledControls(page)).toEqual([]);
  }, 90_000);

  it('sets a new device key on the module page: the printed key stops working', async () => {
    await open('/modules/C0FE');
    await heading('Module C0FE').waitFor();
    const section = page.getByRole('region', { name: 'Device key' });
    await section.getByLabel('New key').fill('cafe0001');
    await section.getByRole('button', { name: 'Set new key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Set new key' }).click();
    await status('C0FE has a new device key.').waitFor();
    expect(await section.getByLabel('Key now in force (get device tokens with it)').inputValue()).toBe('CAFE0001');
    expect((await fetch(`${server.url}/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D`)).status).toBe(401);
    expect((await fetch(`${server.url}/iot/devices/crc.json?sn=C0FE&key=CAFE0001`)).status).toBe(200);
    expect(await unlabelledControls(page)).toEqual([]);
  }, 60_000);

  it('is usable at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, title] of [
      ['/modules/C0FE', 'Module C0FE'],
      ['/account', 'My Account'],
      [`/apps/${appId}`, 'Greenhouse'],
      ['/decoder?frame=020300189167&protocol=UDM23', 'Decoder'],
      ['/keys', 'API keys'],
      ['/audit', 'Audit log'],
    ] as const) {
      await open(path);
      await heading(title).waitFor();
      await page.waitForLoadState('networkidle');
      // Nothing wider than the screen: no sideways scrolling of the page.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(390);
      const tabs = page.getByRole('navigation', { name: 'Dashboard' });
      for (const tab of ['My Account', 'Apps', 'Modules', 'Decoder', 'API keys', 'Audit log']) expect(await tabs.getByRole('link', { name: tab, exact: true }).count()).toBe(1);
    }
    await open('/modules/C0FE');
    await page.locator('table.messages tbody tr').first().waitFor();
    await screenshot(page, 'phone-module', 1688);
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);

  it('works from the keyboard: skip link first, visible focus, a frame decoded without the mouse', async () => {
    await open('/decoder');
    await heading('Decoder').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>(FOCUSED)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>(FOCUSED)).toBe('Frame (hex)');
    expect(await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
    await page.keyboard.type('020300189167');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Decoded' }).getByText('keepalive_voltage_temp', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Decoded' }).getByText('3.30 V', { exact: true }).waitFor();
  }, 60_000);

  it('ends the session, saying why, when the password is changed elsewhere', async () => {
    await open('/modules');
    await heading('Modules').waitFor();
    // A token regenerated elsewhere is no reason to end the session: it is not the session.
    expect((await server.api('/iot/developers/token.json', { method: 'POST' })).status).toBe(200);
    await open('/apps');
    await heading('Apps').waitFor();
    // A password changed elsewhere (a script, another browser) ends every other session.
    const changed = await server.api('/iot/developers/updatePassword.json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currentpwd: password, newpwd: 'Elsewhere789', confirmpwd: 'Elsewhere789' }),
    });
    expect(changed.status).toBe(200);
    password = 'Elsewhere789';
    server.setPassword(password);
    // The next call from the page meets the ended session (the Apps page polls nothing).
    await page.getByRole('link', { name: 'Modules' }).click();
    await page.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
    await page.getByText(/You were signed out: .*session has ended/).waitFor();
    await signIn(page, password);
    await heading('Modules').waitFor();
    // A page loaded with a cookie the server no longer honours says so too.
    await server.api('/iot/developers/updatePassword.json', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currentpwd: password, newpwd: 'Elsewhere790', confirmpwd: 'Elsewhere790' }),
    });
    password = 'Elsewhere790';
    server.setPassword(password);
    await page.reload();
    await page.getByText(/Your session has ended .*sign in again/).waitFor();
    await signIn(page, password);
    await heading('Modules').waitFor();
  }, 30_000);

  it('signs out, and the browser console stayed free of errors and CSP violations', async () => {
    const [cookie] = await context.cookies(server.url);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
    expect(await context.cookies(server.url)).toEqual([]);
    expect(await page.evaluate<number>('sessionStorage.length + localStorage.length')).toBe(0);
    // The old cookie is dead on the server, not just forgotten by the browser.
    const replayed = await fetch(`${server.url}/iot/developers/apps.json`, { headers: { cookie: `snsr_session=${cookie!.value}` } });
    expect(replayed.status).toBe(401);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
    expect(pageErrors).toEqual([]);
  }, 30_000);
});
