import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames, uplink } from '../helpers/uplinks.js';

/** The value of one sample line, `name{labels} value`, or 0 when absent. */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe.each(dialects)('GET /metrics (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    await createDeveloper(app, 'alice@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }]);
    const device = (await app.context.repositories.devices.bySerial('C0FE'))!;
    await app.context.repositories.devices.setFlags(device.id, { watched: true });
  });
  afterAll(() => app.close());

  const scrape = async () => {
    const answer = await app.server.inject({ method: 'GET', url: '/metrics' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.body;
  };

  it('counts uplinks by outcome, their latency, alerts and HTTP requests as traffic comes', async () => {
    const before = await scrape();
    await uplink(app, 'C0FE', frames.batteryLow(1), 1_714_567_890);
    await uplink(app, 'C0FE', frames.tempHigh(2), 1_714_567_900);
    // The same uplink again (replay), and one from a module snsr does not know (rejected).
    const replay = { device: 'C0FE', time: 1_714_567_950, data: frames.batteryOk(3), seqNumber: 3000 };
    for (let i = 0; i < 2; i++) {
      await app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: { authorization: 'Bearer network-token' }, payload: replay });
    }
    await app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: { authorization: 'Bearer network-token' }, payload: { device: 'FFFF', time: 1, data: '00' } });
    const after = await scrape();

    const delta = (name: string, labels = '') => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('snsr_uplinks_total', 'outcome="new"')).toBe(3);
    expect(delta('snsr_uplinks_total', 'outcome="replay"')).toBe(1);
    expect(delta('snsr_uplinks_total', 'outcome="rejected"')).toBe(1);
    expect(delta('snsr_ingest_duration_seconds_count')).toBe(5);
    expect(delta('snsr_alerts_raised_total', 'kind="battery_low"')).toBe(1);
    expect(delta('snsr_alerts_raised_total', 'kind="temperature_high"')).toBe(1);
    expect(delta('snsr_http_requests_total', 'method="POST",route="/network/sigfox/uplink",status="200"')).toBe(4);
    expect(delta('snsr_http_requests_total', 'method="GET",route="/metrics",status="200"')).toBe(1);
    expect(sample(after, 'snsr_http_requests_total', 'method="POST",route="/network/sigfox/uplink",status="404"')).toBeGreaterThanOrEqual(1);
  });

  it('counts the device-token history reads sent to PostgreSQL in batches, and the statements that carried them', async () => {
    const token = await app.context.devices.issueToken('C0FE', '1A2B3C4D');
    const before = await scrape();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => app.server.inject({ method: 'GET', url: '/iot/devices/msgs/history.json?amount=5', headers: { 'x-snsr-device-key': token } })),
    );
    for (const answer of answers) expect(answer.statusCode).toBe(200);
    const after = await scrape();
    const delta = (name: string) => sample(after, name) - sample(before, name);
    if (dialect === 'sqlite') {
      // SQLite reads in this process, each read alone.
      expect(delta('snsr_history_batched_reads_total')).toBe(0);
      expect(sample(after, 'snsr_history_batches_total')).toBe(0);
    } else {
      expect(delta('snsr_history_batched_reads_total')).toBe(6);
      expect(delta('snsr_history_batches_total')).toBeGreaterThanOrEqual(1);
      expect(delta('snsr_history_batches_total')).toBeLessThanOrEqual(6);
    }
  });

  it('shows the delivery queue, the database pool, the event loop and open streams', async () => {
    const text = await scrape();
    for (const name of ['snsr_delivery_queue_depth', 'snsr_delivery_oldest_pending_seconds', 'snsr_db_pool_max', 'snsr_db_pool_busy', 'snsr_open_streams']) {
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'));
    }
    expect(text).toMatch(/^snsr_nodejs_eventloop_lag_p99_seconds \d/m);
    expect(sample(text, 'snsr_db_pool_max')).toBe(dialect === 'sqlite' ? 1 : 10);
    // The writes before: on SQLite they went through the WAL file, which is still there.
    if (dialect === 'sqlite') expect(sample(text, 'snsr_sqlite_wal_bytes')).toBeGreaterThan(0);
    else expect(text).toMatch(/^snsr_sqlite_wal_bytes 0$/m);
  });
});

describe('GET /metrics with SNSR_METRICS_TOKEN', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp('sqlite', { SNSR_METRICS_TOKEN: 'scrape-me' });
  });
  afterAll(() => app.close());

  it('answers 401 without the token or with a wrong one, and the metrics with it', async () => {
    const missing = await app.server.inject({ method: 'GET', url: '/metrics' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Authorization: Bearer <metrics token> is required' });
    expect((await app.server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    const ok = await app.server.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-me' } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toMatch(/^# HELP snsr_uplinks_total /m);
  });
});
