// The history bench's load: a second process (this file, forked) keeps keep-alive connections busy,
// each sending its next request as soon as the previous answer is read, with a random device token
// per request; only 200s count. `measureWith` runs routes in interleaved rounds and takes medians.
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Agent, get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { median, percentile } from './closed-loop.js';
import { backendCpuMs, cpuSpent } from './proc-cpu.js';

export const CONNECTIONS = 8;
export const ROUNDS = 5;
export const ROUND_MS = 1500;
const WARMUP_MS = 1000;

interface Job {
  port: number;
  paths: readonly string[];
  tokens: readonly string[];
  durationMs: number;
}
interface Result {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

function load(job: Job): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latenciesMs: number[] = [];
  let errors = 0;
  const start = performance.now();
  const deadline = start + job.durationMs;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const path = job.paths[Math.floor(Math.random() * job.paths.length)]!;
      const token = job.tokens[Math.floor(Math.random() * job.tokens.length)]!;
      const sent = performance.now();
      const request = get({ host: '127.0.0.1', port: job.port, path, agent, headers: { 'x-snsr-device-key': token } }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) latenciesMs.push(performance.now() - sent);
          else errors++;
          resolve();
        });
      });
      request.on('error', () => {
        errors++;
        resolve();
      });
    });
  const connection = async () => {
    while (performance.now() < deadline) await one();
  };
  return Promise.all(Array.from({ length: CONNECTIONS }, connection)).then(() => {
    agent.destroy();
    return { requests: latenciesMs.length, errors, seconds: (performance.now() - start) / 1000, latenciesMs };
  });
}

if (process.argv.includes('--history-load-generator')) {
  process.on('message', (job: Job) => {
    void load(job).then((result) => process.send!(result));
  });
}

/** A route under load: where it listens, the paths asked for, the tokens sent, and the PostgreSQL database serving it. */
export interface Route {
  port: number;
  paths: readonly string[];
  tokens: readonly string[];
  /** PostgreSQL: the database whose backends' CPU is counted; absent on SQLite */
  url?: string;
}

export interface Figure {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU µs of the server process per answered request */
  cpuUs: number;
  /** CPU µs of the PostgreSQL backends per answered request (0 on SQLite) */
  dbUs: number;
}


export type Measure = (routes: Record<string, Route>, roundCount?: number) => Promise<Record<string, Figure>>;

/** The load generator's process, and how to measure routes with it; `stop` ends the process. */
export function loadGenerator(): { measure: Measure; stop: () => void } {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--history-load-generator'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (job: Job): Promise<Result> =>
    new Promise((resolve) => {
      child.once('message', (result: Result) => resolve(result));
      child.send(job);
    });
  /**
   * Interleaved rounds, so every route sees the same machine load; each figure is the median of the
   * rounds' figures, so one round disturbed by another process does not decide it.
   */
  const measure: Measure = async (routes, roundCount = ROUNDS) => {
    const rounds: Record<string, Figure[]> = {};
    for (const { port, paths, tokens } of Object.values(routes)) await ask({ port, paths, tokens, durationMs: WARMUP_MS });
    for (let round = 0; round < roundCount; round++) {
      for (const [name, { port, paths, tokens, url }] of Object.entries(routes)) {
        const db = url ? await backendCpuMs(url) : undefined;
        const cpu = process.cpuUsage();
        const result = await ask({ port, paths, tokens, durationMs: ROUND_MS });
        const used = process.cpuUsage(cpu);
        const dbMs = url && db ? cpuSpent(db, await backendCpuMs(url)) : 0;
        const latencies = result.latenciesMs.sort((a, b) => a - b);
        (rounds[name] ??= []).push({
          rate: result.requests / result.seconds,
          p50: percentile(latencies, 0.5),
          p99: percentile(latencies, 0.99),
          errors: result.errors,
          cpuUs: (used.user + used.system) / Math.max(1, result.requests),
          dbUs: (dbMs * 1000) / Math.max(1, result.requests),
        });
      }
    }
    const figures: Record<string, Figure> = {};
    for (const [name, list] of Object.entries(rounds)) {
      figures[name] = {
        rate: median(list.map((f) => f.rate)),
        p50: median(list.map((f) => f.p50)),
        p99: median(list.map((f) => f.p99)),
        errors: list.reduce((sum, f) => sum + f.errors, 0),
        cpuUs: median(list.map((f) => f.cpuUs)),
        dbUs: median(list.map((f) => f.dbUs)),
      };
    }
    return figures;
  };
  return { measure, stop: () => child.kill() };
}
