import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Kysely } from 'kysely';
import { snsr, startSnsr } from '../helpers/cli.js';
import { seedFleet } from '../helpers/fleet.js';
import { openStorage } from '../../src/storage/storage.js';
import type { Database } from '../../src/storage/schema.js';

/** Debian's Chromium; `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser suites can run. CI must have Chromium (a missing one fails the run); a
 * laptop without it skips them with a message, as the PostgreSQL suites do without PostgreSQL.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM} is required in CI for the dashboard's browser tests (apt-get install chromium)`);
  console.warn(`\n!! ${CHROMIUM} not found: the dashboard's browser tests are skipped (apt-get install chromium to run them)\n`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // Without the background-networking flags Chromium keeps calling Google services, which on a
    // closed network only adds noise and delay.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A desktop-sized page for the dashboard at `url`, with clipboard access, a 15 s default wait, and
 * every page error, uncaught exception and CSP violation collected in `errors`.
 */
export async function openDashboard(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Uncaught/i.test(message.text())) errors.push(message.text());
  });
  return { context, page, errors };
}

export const SCREENSHOTS = join(process.cwd(), 'test-results', 'screenshots');

/**
 * Full-page screenshot into test-results/screenshots/<name>.png (git-ignored; the README's come
 * from here). `height` keeps only the top of a long page.
 */
export async function screenshot(page: Page, name: string, height?: number): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  const width = page.viewportSize()?.width ?? 1280;
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}.png`),
    fullPage: true,
    animations: 'disabled',
    ...(height !== undefined && { clip: { x: 0, y: 0, width, height } }),
  });
}

/** A local port nothing listens on: callbacks sent there fail at once (connection refused). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const EMAIL = 'dev@example.com';
export const PASSWORD = 'Secret123';
export const NETWORK_TOKEN = 'network-token-for-the-browser-tests';

export interface RunningSnsr {
  url: string;
  /** The account token `accounts create` printed. */
  token: string;
  env: Record<string, string>;
  /** Developer API call with email and password (or `auth`, a whole Authorization header). */
  api<T>(path: string, init?: RequestInit & { auth?: string }): Promise<{ status: number; body: T }>;
  /** The password `api` uses from now on (after the dashboard changed it). */
  setPassword(password: string): void;
  stop(): Promise<void>;
}

/**
 * The built binary serving on a free port (or `extra.PORT`) with a fresh SQLite database, an
 * account made with `accounts create`, the catalog imported with `catalog import`, and callbacks
 * that give up after one attempt so a failed delivery shows within a second. `extra` adds settings.
 */
export async function startServer(extra: Record<string, string> = {}): Promise<RunningSnsr> {
  const dir = mkdtempSync(join(tmpdir(), 'snsr-web-'));
  const env: Record<string, string> = {
    SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'),
    SNSR_SECRET: 'browser-test-secret',
    SNSR_NETWORK_TOKEN: NETWORK_TOKEN,
    SNSR_CALLBACK_ALLOW_PRIVATE: 'true',
    SNSR_DELIVERY_BACKOFF_MS: '50',
    SNSR_DELIVERY_MAX_ATTEMPTS: '1',
    ...extra,
  };
  const created = await snsr(['accounts', 'create', '--email', EMAIL, '--password', PASSWORD], env);
  if (created.code !== 0) throw new Error(`accounts create failed: ${created.stderr}`);
  const catalog = join(dir, 'catalog.csv');
  writeFileSync(catalog, 'SERIAL;KEY;PAC;PROTOCOL\nC0FE;1A2B3C4D;0123456789ABCDEF;UDM23\nBEEF;DEADBEEF;FEDCBA9876543210;UDM22\n0ACE;0000ACE0;00000000000ACE00;UDM23\n');
  const imported = await snsr(['catalog', 'import', catalog], env);
  if (imported.code !== 0) throw new Error(`catalog import failed: ${imported.stderr}`);

  const { child, output } = await startSnsr(['serve'], { PORT: '0', ...env, HOST: '127.0.0.1' });
  const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1];
  if (!port) throw new Error(`no port in the server output:\n${output()}`);
  const url = `http://127.0.0.1:${port}`;
  // A server gone before the test stops it fails the tests after it with refused connections: say why.
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`snsr serve (${url}) exited by itself (code ${code}, signal ${signal}); its output:\n${output()}`);
  });
  let basic = `Basic ${Buffer.from(`${EMAIL}:${PASSWORD}`).toString('base64')}`;
  return {
    url,
    token: created.stdout.trim().split('\n').at(-1)!,
    env,
    api: async <T>(path: string, init: RequestInit & { auth?: string } = {}) => {
      const response = await fetch(`${url}${path}`, { ...init, headers: { authorization: init.auth ?? basic, ...(init.headers as Record<string, string>) } });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
    },
    setPassword: (password: string) => {
      basic = `Basic ${Buffer.from(`${EMAIL}:${password}`).toString('base64')}`;
    },
    stop: async () => {
      stopping = true;
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A server (load shedding off: a loaded 2-core machine lags past 500 ms, and these suites are about
 * the pages) with `count` fleet modules of `seedFleet` registered to the test account, straight in
 * its database; `more` adds rows beside them.
 */
export async function startFleetServer(count: number, now: number, more?: (db: Kysely<Database>, accountId: number) => Promise<void>): Promise<RunningSnsr> {
  const server = await startServer({ SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' });
  const storage = await openStorage(server.env.SNSR_DATABASE_URL!);
  try {
    const { id } = await storage.db.selectFrom('accounts').select('id').where('email', '=', EMAIL).executeTakeFirstOrThrow();
    await seedFleet(storage.db, id, count, now);
    await more?.(storage.db, id);
  } finally {
    await storage.close();
  }
  return server;
}

/** Signs the test account in on the page open at a dashboard URL (the sign-in form shows there). */
export async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
