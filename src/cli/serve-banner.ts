import cluster from 'node:cluster';
import type { Config } from '../config.js';
import { parseDatabaseUrl } from '../config.js';

/** The database as a person would name it, with any password hidden. */
export function describeDatabase(databaseUrl: string): string {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.dialect === 'sqlite') return target.path === ':memory:' ? 'SQLite in memory (nothing is kept)' : `SQLite ${target.path}`;
  try {
    const url = new URL(target.url);
    if (url.password) url.password = '***';
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return 'PostgreSQL (SNSR_DATABASE_URL)';
  }
}

/**
 * What `snsr serve` tells the person who started it: where the dashboard is, which database it
 * uses, and the one missing setting that makes it refuse every uplink without saying so otherwise.
 */
export function serveBanner(config: Config, port: number): string {
  const wildcard = config.host === '0.0.0.0' || config.host === '::' || config.host === '';
  const host = wildcard ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = `http://${host}:${port}`;
  const lines = [
    `snsr is ready`,
    `  dashboard  ${base}/`,
    `  API docs   ${base}/docs`,
    `  database   ${describeDatabase(config.databaseUrl)}`,
  ];
  if (config.networkToken === undefined) {
    lines.push(
      'warning: SNSR_NETWORK_TOKEN is not set, so every uplink from the Sigfox network is refused (503).',
      '         Set it in the environment or in .env to the token your Sigfox callbacks send.',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** On stderr (stdout carries JSON log lines off a terminal); once per `snsr serve`, not per forked process. */
export function printServeBanner(config: Config, port: number): void {
  if (cluster.isWorker && cluster.worker?.id !== 1) return;
  process.stderr.write(serveBanner(config, port));
}
