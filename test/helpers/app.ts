import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';
import type { Server } from '../../src/http/server-types.js';
import { migratedDatabase } from './database.js';
import type { Dialect } from './database.js';
import { NO_SHEDDING } from './cli.js';

export interface TestApp {
  context: Context;
  server: Server;
  close(): Promise<void>;
}

/** The real app on a fresh database of the dialect; `env` adds configuration variables. */
export async function startApp(dialect: Dialect, env: Record<string, string> = {}): Promise<TestApp> {
  const database = await migratedDatabase(dialect);
  const config = loadConfig({ SNSR_SECRET: 'test-secret', SNSR_NETWORK_TOKEN: 'network-token', ...NO_SHEDDING, ...env, SNSR_DATABASE_URL: database.url });
  const context = await createContext(config, { log: pino({ level: 'silent' }) });
  const server = await buildServer(context);
  await server.ready();
  return {
    context,
    server,
    close: async () => {
      await server.close();
      await context.close();
      await database.drop();
    },
  };
}

export const basic = (user: string, secret: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;

export const PASSWORD = 'Secret123';

/** Creates an account; returns its Basic header built from email and password. */
export async function createDeveloper(app: TestApp, email = 'dev@example.com'): Promise<{ auth: string; token: string; email: string }> {
  const { token } = await app.context.accounts.create(email, PASSWORD);
  return { auth: basic(email, PASSWORD), token, email };
}

/** Catalog modules C0FE (UDM23), BEEF (UDM22) and 0ACE, with keys and PACs derived from the serial. */
export const CATALOG = [
  { serial: 'C0FE', key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23' as const },
  { serial: 'BEEF', key: 'DEADBEEF', pac: 'FEDCBA9876543210', protocol: 'UDM22' as const },
  { serial: '0ACE', key: '0000ACE0', pac: '00000000000ACE00', protocol: 'UDM23' as const },
];

export async function importCatalog(app: TestApp): Promise<void> {
  await app.context.repositories.modules.importCatalog(CATALOG);
}
