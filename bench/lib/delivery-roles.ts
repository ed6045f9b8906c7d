// The delivery bench's shared setup and its child processes (forked with SNSR_BENCH_ROLE): a
// receiver counting requests, a snsr server with or without its worker, and a worker process.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import type { Context } from '../../src/context.js';
import { buildServer } from '../../src/http/server.js';

export const APPS = 8;
export const MODULES = 200;
export const TOKEN = 'bench-network-token';
export const silent = pino({ level: 'silent' });

export type Dialect = 'sqlite' | 'postgres';
type ChildMessage = { type: 'ready'; port: number } | { type: 'report'; requests: number; rssPeakMb: number; cpuMs: number };

export const modules = Array.from({ length: MODULES }, (_, i) => {
  const serial = (0xd0000001 + i).toString(16).toUpperCase();
  return { serial, key: serial, pac: `${serial}${serial}`, protocol: 'UDM23' as const };
});

/** A valid UDM23 event frame whose counters vary with `n` (never the retry bit: each is a new message). */
export function frame(n: number): string {
  return `${(((n >> 4) & 7) << 4 | (n & 0x0f)).toString(16).padStart(2, '0')}000046`;
}

// ---------------------------------------------------------------- child processes

/** A receiver that answers 200 at once and counts requests (throughput run). */
async function receiverRole(): Promise<void> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      response.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reporter(() => requests);
  process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies ChildMessage);
}

/** `snsr serve` with its worker, on a database where every module is attached to one of the apps. */
async function serverRole(): Promise<void> {
  const context = await createContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)), backgroundCheckpoints: true });
  await setup(context, process.env.BENCH_RECEIVER_URL!);
  const app = await buildServer(context);
  await app.listen({ port: 0, host: '127.0.0.1' });
  if (process.env.BENCH_WORKER !== 'separate') context.startWorker();
  reporter(() => 0, async () => {
    await app.close();
    await context.close();
  });
  process.send?.({ type: 'ready', port: (app.server.address() as AddressInfo).port } satisfies ChildMessage);
}

/** `snsr worker`: a worker process of its own on the server's database. */
async function workerRole(): Promise<void> {
  const context = await createContext(loadConfig(), { log: pino({ level: 'warn' }, pino.destination(2)), migrate: false });
  context.startWorker();
  reporter(() => 0, () => context.close());
  process.send?.({ type: 'ready', port: 0 } satisfies ChildMessage);
}

function reporter(requests: () => number, close?: () => Promise<void>): void {
  let rssPeak = 0;
  let cpu = process.cpuUsage();
  setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 50).unref();
  process.on('message', async (message: string) => {
    if (message === 'reset') {
      rssPeak = process.memoryUsage.rss();
      cpu = process.cpuUsage();
    } else if (message === 'report') {
      const used = process.cpuUsage(cpu);
      process.send?.({ type: 'report', requests: requests(), rssPeakMb: rssPeak / 2 ** 20, cpuMs: (used.user + used.system) / 1000 } satisfies ChildMessage);
    } else if (message === 'stop') {
      await close?.();
      process.exit(0);
    }
  });
}

/** Catalog, one account owning every module, `appCount` apps with the callback URL, modules spread over them. */
export async function setup(context: Context, callbackUrl: string, appCount = APPS): Promise<number[]> {
  await context.repositories.modules.importCatalog(modules);
  const { account } = await context.accounts.create('bench@example.com', 'Secret123');
  await context.modules.register(account.id, modules.map(({ serial, key }) => ({ serial, key })));
  const apps: number[] = [];
  for (let i = 0; i < appCount; i++) {
    const app = await context.apps.save(account.id, { name: `bench ${i}`, callbackurl: callbackUrl });
    await context.apps.attach(account.id, app.id, modules.filter((_, m) => m % appCount === i).map((m) => m.serial));
    apps.push(app.id);
  }
  return apps;
}

export function next<T extends ChildMessage['type']>(child: ChildProcess, type: T): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      resolve(message as Extract<ChildMessage, { type: T }>);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`bench child exited with ${code}`)));
  });
}

export function spawnRole(role: string, env: Record<string, string> = {}): ChildProcess {
  return fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, ...env, SNSR_BENCH_ROLE: role },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
}


export const envFor = (url: string) => ({ SNSR_DATABASE_URL: url, SNSR_SECRET: 'bench', SNSR_NETWORK_TOKEN: TOKEN, SNSR_CALLBACK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' });

if (process.env.SNSR_BENCH_ROLE === 'delivery-receiver') await receiverRole();
if (process.env.SNSR_BENCH_ROLE === 'delivery-server') await serverRole();
if (process.env.SNSR_BENCH_ROLE === 'delivery-worker') await workerRole();
