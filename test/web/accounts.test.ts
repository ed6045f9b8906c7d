import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { link, startSmtp } from '../helpers/smtp.js';
import type { TestSmtp } from '../helpers/smtp.js';
import { chromiumAvailable, closedPort, launchChromium, openDashboard, screenshot, startServer } from './browser.js';
import type { RunningSnsr } from './browser.js';

const run = chromiumAvailable();
const NEWCOMER = 'newcomer@example.com';

describe.skipIf(!run)('accounts in the dashboard: sign-up, activation, API keys, audit, reset, deletion (Chromium)', () => {
  let smtp: TestSmtp;
  let server: RunningSnsr;
  let browser: Browser;
  let page: Page;
  let password = 'Welcome123';
  let pageErrors: string[] = [];

  const heading = (name: string | RegExp) => page.getByRole('heading', { name, level: 1 });
  const signInPage = () => page.getByRole('heading', { name: 'Sign in to the developer dashboard' });
  const signIn = async (email: string, secret: string) => {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
  };
  const asNewcomer = (path: string, init: RequestInit & { auth?: string } = {}) =>
    server.api(path, { ...init, auth: init.auth ?? `Basic ${Buffer.from(`${NEWCOMER}:${password}`).toString('base64')}` });

  beforeAll(async () => {
    smtp = await startSmtp();
    // The links in emails must name the server's address before it starts: pick its port first.
    const port = await closedPort();
    server = await startServer({ PORT: String(port), SNSR_PUBLIC_URL: `http://127.0.0.1:${port}`, SNSR_SIGNUP: 'open', SNSR_SMTP_URL: smtp.url });
    browser = await launchChromium();
    ({ page, errors: pageErrors } = await openDashboard(browser, server.url));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await smtp?.close();
  });

  it('signs up and activates the account from the emailed link (the portal’s /dashboards/developer.html#?uuid=)', async () => {
    await page.goto(server.url);
    await signInPage().waitFor();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading('Create an account').waitFor();
    await page.getByLabel('Email').fill(NEWCOMER);
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Last name').fill('Lovelace');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByLabel('Confirm password').fill('Mismatch123');
    await page.getByRole('list', { name: 'Password rules' }).getByText('Confirmation matches: not met yet').waitFor();
    await page.getByLabel('Confirm password').fill(password);
    await screenshot(page, 'sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading('Check your email').waitFor();
    await page.getByText(`We sent a link to ${NEWCOMER}`).waitFor();

    const email = await smtp.next(NEWCOMER, /Activate your snsr account/);
    const activation = link(email, `${server.url}/dashboards/developer.html#?uuid=`);
    // Not activated yet: signing in says so.
    await page.goto(server.url);
    await signIn(NEWCOMER, password);
    await page.getByRole('alert').filter({ hasText: 'not activated yet' }).waitFor();

    await page.goto(activation);
    await heading('Activate your account').waitFor();
    await page.getByRole('status').filter({ hasText: 'Your account is active' }).waitFor();
    await screenshot(page, 'activated');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signInPage().waitFor();
    await signIn(NEWCOMER, password);
    // Signed in, the overview is the landing page; the name is on My Account.
    await heading('Overview').waitFor();
    await page.getByRole('link', { name: 'My Account' }).click();
    await heading('My Account').waitFor();
    await page.getByText('Ada Lovelace').waitFor();

    // The link works once.
    await page.goto(activation);
    await page.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
  }, 60_000);

  it('creates a read-only API key, shows its token once, and revokes it', async () => {
    await page.goto(`${server.url}/keys`);
    await heading('API keys').waitFor();
    await page.getByText('No API key yet.').waitFor();
    await page.getByLabel('Name').fill('grafana');
    await page.getByLabel('Access').selectOption('read');
    await page.getByLabel('Expires').selectOption('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Key “grafana” created' }).waitFor();
    const token = await page.getByLabel(/^Token/).inputValue();
    await page.getByRole('button', { name: 'Copy API key token' }).click();
    await page.getByRole('button', { name: 'Copy API key token' }).filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
    expect(Buffer.from(token, 'base64').toString()).toMatch(new RegExp(`^${NEWCOMER}:snsr_`));
    await screenshot(page, 'keys');

    expect((await asNewcomer('/iot/developers/apps.json', { auth: `Basic ${token}` })).status).toBe(200);
    const write = await asNewcomer('/iot/developers/apps.json', { auth: `Basic ${token}`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    expect(write.status).toBe(403);

    await page.getByRole('button', { name: 'I have copied it' }).click();
    // Gone from the page for good: only the prefix is listed.
    expect(await page.getByText(token).count()).toBe(0);
    const row = page.getByRole('row', { name: /grafana/ });
    await row.getByText('Read only').waitFor();
    await row.getByText(/^snsr_.{8}…$/).waitFor();
    await row.getByRole('button', { name: 'Revoke grafana' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No API key yet.').waitFor();
    expect((await asNewcomer('/iot/developers/apps.json', { auth: `Basic ${token}` })).status).toBe(401);
  }, 60_000);

  it('a wrong current password is an inline error; the user stays signed in', async () => {
    await page.getByRole('link', { name: 'My Account' }).click();
    await heading('My Account').waitFor();
    await page.getByLabel('Current password').fill('NotMine123');
    await page.getByLabel('New password', { exact: true }).fill('Changed123');
    await page.getByLabel('Confirm new password').fill('Changed123');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This is not your current password.').waitFor();
    await page.reload();
    await heading('My Account').waitFor();
  }, 30_000);

  it('the audit log lists what was done, with the credential used', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await heading('Audit log').waitFor();
    const rows = page.locator('table tbody tr');
    // Newest first. The sign-in refused before activation has no account to be logged in, and
    // the API calls made with the key (a read, a refused write) are not actions.
    const expected = [
      ['Password change refused (wrong current password)', 'dashboard session'],
      ['Revoked an API key', 'dashboard session'],
      ['Created an API key', 'dashboard session'],
      ['Signed in', 'password'],
      ['Activated the account', 'emailed link'],
    ];
    await expect.poll(() => rows.count()).toBe(expected.length);
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')!.textContent, tr.querySelectorAll('td')[1]!.textContent]));
    expect(shown).toEqual(expected);
    await rows.first().getByText('127.0.0.1').waitFor();
    await page.getByText('name: grafana').first().waitFor();
    await screenshot(page, 'audit');
  }, 30_000);

  it('resets a forgotten password from the emailed link; the link works once', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInPage().waitFor();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await heading('Forgot your password?').waitFor();
    await page.getByLabel('Email').fill(NEWCOMER);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText(`If ${NEWCOMER} has an account`).waitFor();

    const email = await smtp.next(NEWCOMER, /Reset your snsr password/);
    const reset = link(email, `${server.url}/reset-password#token=`);
    await page.goto(reset);
    await heading('Choose a new password').waitFor();
    // The token leaves the address bar once read.
    expect(new URL(page.url()).hash).toBe('');
    password = 'Renewed456';
    await page.getByLabel('New password', { exact: true }).fill(password);
    await page.getByLabel('Confirm new password').fill(password);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await heading('Password changed').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(NEWCOMER, 'Welcome123');
    await page.getByRole('alert').filter({ hasText: 'The password is not right' }).waitFor();
    await signIn(NEWCOMER, password);
    await heading('Overview').waitFor();

    await page.goto(reset);
    await page.getByLabel('New password', { exact: true }).fill('Another789');
    await page.getByLabel('Confirm new password').fill('Another789');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
  }, 60_000);

  it('the new pages fit a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [path, title] of [
        ['/keys', 'API keys'],
        ['/audit', 'Audit log'],
        ['/account', 'My Account'],
      ] as const) {
        await page.goto(`${server.url}${path}`);
        await heading(title).waitFor();
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate<number>('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(390);
        await screenshot(page, `phone-${path.slice(1)}`);
      }
      await page.goto(`${server.url}/signup`);
      await heading('Create an account').waitFor();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }, 60_000);

  it('deletes the account after the email is typed and the dialog confirmed', async () => {
    await page.goto(`${server.url}/account`);
    await heading('My Account').waitFor();
    const remove = page.getByRole('button', { name: 'Delete account' });
    expect(await remove.isDisabled()).toBe(true);
    await page.getByLabel('Type your email to confirm').fill(NEWCOMER);
    await remove.click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete my account' }).click();
    await signInPage().waitFor();
    await page.getByText(`The account ${NEWCOMER} was deleted.`).waitFor();
    expect((await asNewcomer('/iot/developers.json')).status).toBe(404);
    await signIn(NEWCOMER, password);
    await page.getByRole('alert').filter({ hasText: 'There is no developer account with this email' }).waitFor();
    expect(pageErrors).toEqual([]);
  }, 30_000);
});
