// A closed-loop HTTP load generator in a forked process, so that the server measured keeps a core
// of its own: keep-alive connections, each sending its next request as soon as the last one ends.
import { fork } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import { fileURLToPath } from 'node:url';

export interface LoadJob {
  port: number;
  method?: 'GET' | 'POST';
  path: string;
  headers: OutgoingHttpHeaders;
  durationMs: number;
  connections: number;
  /** For POST: every request a new Sigfox uplink of C0FE, its sequence number from this one on. */
  seqStart?: number;
}
export interface LoadResult {
  /** Requests answered 200. */
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

const T0 = 1_700_000_000;
/** The uplink body POSTed by jobs with `seqStart`: a keep-alive frame of C0FE heard by one station. */
export const benchUplink = (seq: number): string =>
  JSON.stringify({ device: 'C0FE', time: T0 + seq, data: '020300189167', seqNumber: seq % 4096, station: '1A2B', rssi: -120.5, snr: 12.25, avgSnr: 11.5, lat: 45, lng: 5, duplicate: false, ack: false });

function load(job: LoadJob): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
  const latenciesMs: number[] = [];
  let errors = 0;
  let seq = job.seqStart ?? 0;
  const start = performance.now();
  const deadline = start + job.durationMs;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const sent = performance.now();
      const body = job.method === 'POST' ? benchUplink(seq++) : undefined;
      const headers = body ? { ...job.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : job.headers;
      const request = httpRequest({ host: '127.0.0.1', port: job.port, method: job.method ?? 'GET', path: job.path, agent, headers }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode === 200) latenciesMs.push(performance.now() - sent);
          else errors++;
          resolve();
        });
      });
      request.on('error', () => (errors++, resolve()));
      request.end(body);
    });
  const connection = async () => {
    while (performance.now() < deadline) await one();
  };
  return Promise.all(Array.from({ length: job.connections }, connection)).then(() => {
    agent.destroy();
    return { requests: latenciesMs.length, errors, seconds: (performance.now() - start) / 1000, latenciesMs };
  });
}

if (process.argv.includes('--closed-loop-load-generator')) {
  process.on('message', (job: LoadJob) => void load(job).then((result) => process.send!(result)));
}

/** Forks the generator; `ask` runs one job there at a time. */
export function forkLoadGenerator(): { ask(job: LoadJob): Promise<LoadResult>; close(): void } {
  const child = fork(fileURLToPath(import.meta.url), ['--closed-loop-load-generator'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    ask: (job) =>
      new Promise((resolve) => {
        child.once('message', (result: LoadResult) => resolve(result));
        child.send(job);
      }),
    close: () => void child.kill(),
  };
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
