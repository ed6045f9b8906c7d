import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, snsr } from '../helpers/cli.js';
import { dialects } from '../helpers/database.js';
import { scratchDatabase } from '../helpers/scratch-database.js';
import type { ScratchDatabase } from '../helpers/scratch-database.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Pids of the processes that logged "listening on", in order. */
const listening = (output: string) => [...output.matchAll(/"pid":(\d+)[^\n]*listening on/g)].map((m) => Number(m[1]));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean, what: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting; output:\n${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('snsr serve --processes', () => {
  it('refuses several processes on SQLite', async () => {
    const result = await snsr(['serve', '--processes', '2'], { SNSR_DATABASE_URL: 'sqlite::memory:' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/several processes need PostgreSQL/);
    const bad = await snsr(['serve', '--processes', 'zero']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/a whole number from 1 to 256/);
  });

  describe.runIf(dialects.includes('postgres'))('on PostgreSQL', () => {
    let database: ScratchDatabase | undefined;
    afterEach(async () => {
      await database?.drop();
      database = undefined;
    });

    it('serves from N processes on one port, replaces one that dies, and stops them all on SIGTERM', async () => {
      database = await scratchDatabase('postgres', 'snsr_cluster');
      const port = await freePort();
      const env = { ...process.env, SNSR_DATABASE_URL: database.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', LOG_FORMAT: 'json', SNSR_DATABASE_POOL_SIZE: '2' };
      const child = spawn(process.execPath, [BIN, 'serve', '--processes', '3'], { env });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      try {
        await until(() => listening(output).length >= 3, () => output);
        const pids = listening(output);
        expect(new Set(pids).size).toBe(3);
        expect(pids).not.toContain(child.pid);
        for (let i = 0; i < 6; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

        process.kill(pids[0]!, 'SIGKILL');
        await until(() => listening(output).length >= 4, () => output);
        expect(output).toMatch(/a server process died; starting another/);
        const replacement = listening(output)[3]!;
        expect(pids).not.toContain(replacement);
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect([pids[1]!, pids[2]!, replacement].filter(alive)).toEqual([]);
        expect(output).toMatch(/every process has stopped/);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    }, 90_000);
  });
});
