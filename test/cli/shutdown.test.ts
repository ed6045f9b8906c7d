import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSnsr } from '../helpers/cli.js';
import { openStorage } from '../../src/storage/storage.js';
import { get, rawClient, timed } from '../helpers/sockets.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snsr serve on SIGTERM', () => {
  it('closes idle keep-alive connections at once, cuts half-sent requests at the grace bound, exits 0', { timeout: 60_000 }, async () => {
    const grace = 2000;
    const { child, output } = await startSnsr(['serve'], {
      SNSR_DATABASE_URL: join(dir, 'snsr.sqlite'),
      SNSR_SECRET: 'test-secret',
      SNSR_NETWORK_TOKEN: 'network-token',
      SNSR_SHUTDOWN_GRACE_MS: String(grace),
      PORT: '0',
      HOST: '127.0.0.1',
    });
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1]);
    const idle = await Promise.all(Array.from({ length: 50 }, () => rawClient(port)));
    for (const client of idle) expect(await get(client, '/healthz')).toMatch(/^HTTP\/1\.1 200 /);
    const halfSent = await rawClient(port);
    // `Expect: 100-continue` makes the server say when it has the headers: the request is then in flight.
    halfSent.socket.write('POST /network/sigfox/uplink HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer network-token\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n');
    await expect.poll(() => halfSent.received(), { timeout: 10_000 }).toMatch(/^HTTP\/1\.1 100 Continue/);
    halfSent.socket.write('{"dev');
    const halfHeaders = await rawClient(port);
    halfHeaders.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');

    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const start = performance.now();
    child.kill('SIGTERM');
    // Idle connections are closed at once, not after the keep-alive timeout or the grace period.
    await timed(Promise.all(idle.map((client) => client.closed)), 1500);
    // The half-sent request holds the process until the grace period ends, no longer.
    await timed(Promise.all([halfSent.closed, halfHeaders.closed]), grace + 3000);
    expect(await exited).toBe(0);
    const elapsed = performance.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(grace - 100);
    expect(elapsed).toBeLessThan(grace + 3000);
    expect(output()).toMatch(/shutting down/);
  });
});

describe('snsr serve with SMTP', () => {
  it('runs the alert mailer, which gives its lease up on SIGTERM so another process sends at once', { timeout: 60_000 }, async () => {
    const database = join(dir, 'mailer.sqlite');
    const { child } = await startSnsr(['serve'], {
      SNSR_DATABASE_URL: database,
      SNSR_SECRET: 'test-secret',
      SNSR_SMTP_URL: 'smtp://127.0.0.1:2525',
      SNSR_PUBLIC_URL: 'https://snsr.example.com',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    const storage = await openStorage(database, { migrate: false });
    try {
      const holders = () => storage.db.selectFrom('leases').select('owner').where('name', '=', 'alert-mailer').execute();
      await expect.poll(holders).toHaveLength(1);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(await holders()).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
