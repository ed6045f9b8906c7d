import { loadConfig } from '../config.js';
import type { Context } from '../context.js';
import { pino } from 'pino';

/**
 * Runs a command body on a fresh context and closes it afterwards. CLI commands log only warnings
 * (to stderr), so their standard output stays clean for scripts.
 */
export async function withContext<T>(body: (context: Context) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel === 'info' ? 'warn' : config.logLevel }, pino.destination(2));
  // Loaded here, not at the top: `snsr --help` and the commands that need no database start at once.
  const { createContext } = await import('../context.js');
  const context = await createContext(config, { log });
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}
