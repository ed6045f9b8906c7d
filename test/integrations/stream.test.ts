import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { createDeveloper, importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { frames } from '../helpers/uplinks.js';
import { openSse } from '../helpers/sse-client.js';
import type { SseClient } from '../helpers/sse-client.js';
import { startSnsr } from '../helpers/cli.js';
import { sameOrigin, signIn } from '../helpers/session.js';

const T0 = 1_714_567_890;

describe.each(dialects)('GET /iot/developers/stream (%s)', (dialect) => {
  let app: TestApp;
  let base: string;
  let alice: Awaited<ReturnType<typeof createDeveloper>>;
  let bob: Awaited<ReturnType<typeof createDeveloper>>;
  let appId: number;
  const clients: SseClient[] = [];
  let seq = 100;
  beforeAll(async () => {
    // Load shedding off: a busy test machine must not turn uplinks away with 503.
    app = await startApp(dialect, { SNSR_STREAM_HEARTBEAT_S: '1', SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' });
    await importCatalog(app);
    alice = await createDeveloper(app, 'alice@example.com');
    bob = await createDeveloper(app, 'bob@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    await app.context.modules.register(2, [{ serial: 'BEEF', key: 'DEADBEEF' }]);
    const { id } = (await app.context.repositories.devices.bySerial('C0FE'))!;
    await app.context.repositories.devices.setFlags(id, { watched: true });
    appId = (await app.context.apps.save(1, { name: 'only C0FE' })).id;
    await app.context.apps.attach(1, appId, ['C0FE']);
    base = await app.server.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await app.close();
  });

  const open = async (query = '', headers: Record<string, string> = { authorization: alice.auth }) => {
    const client = await openSse(`${base}/iot/developers/stream${query}`, headers);
    clients.push(client);
    return client;
  };
  const send = (device: string, data: string, to = base) =>
    fetch(`${to}/network/sigfox/uplink`, {
      method: 'POST',
      headers: { authorization: 'Bearer network-token', 'content-type': 'application/json' },
      body: JSON.stringify({ device, time: T0 + seq, data, seqNumber: ++seq }),
    }).then((r) => expect(r.status).toBe(200));

  it('answers 401 without credentials, 404 for what the caller does not own, 400 for bad filters', async () => {
    expect((await open('', {})).status).toBe(401);
    expect((await open('?serial=BEEF')).status).toBe(404);
    expect((await open('?app=999')).status).toBe(404);
    expect((await open('?app=abc')).status).toBe(400);
    expect((await open('', { authorization: alice.auth, 'last-event-id': 'nonsense' })).status).toBe(400);
  });

  it("sends the caller's messages and alerts, filtered, with heartbeats, and never another account's", async () => {
    const all = await open();
    const filtered = await open(`?app=${appId}`);
    const theirs = await open('', { authorization: bob.auth });
    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await app.context.streams.hub.ready();

    await send('BEEF', '00000046');
    await send('0ACE', frames.tempOk(1));
    await send('C0FE', frames.batteryLow(2));
    const [message0ace, messageC0fe] = await all.waitFor(2, 'message');
    expect(JSON.parse(message0ace!.data)).toMatchObject({ module: '0ACE', device: '0ACE', message: { device: '0ACE', payload: frames.tempOk(1), type: 'event:tempok' } });
    expect(JSON.parse(messageC0fe!.data)).toMatchObject({ module: 'C0FE', message: { type: 'event:batterylow' } });
    const [alert] = await all.waitFor(1, 'alert');
    expect(JSON.parse(alert!.data)).toMatchObject({ module: 'C0FE', device: 'C0FE', kind: 'battery_low', ended: null });
    expect(alert!.id).toMatch(/^\d+-\d+-\d+-\d+$/);

    const only = await filtered.waitFor(1, 'message');
    expect(only.map((e) => JSON.parse(e.data).module)).toEqual(['C0FE']);
    const bobs = await theirs.waitFor(1, 'message');
    expect(bobs.map((e) => JSON.parse(e.data).module)).toEqual(['BEEF']);
    await all.waitFor(1, undefined);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(all.comments).toContain('heartbeat');
    expect(all.events.some((e) => JSON.parse(e.data).module === 'BEEF')).toBe(false);
    expect(filtered.events.filter((e) => e.event === 'message')).toHaveLength(1);
    expect(theirs.events).toHaveLength(1);
  });

  it('resumes from Last-Event-ID with what was missed, and not what was seen', async () => {
    const first = await open('?serial=C0FE');
    await app.context.streams.hub.ready();
    await send('C0FE', frames.tempHigh(3));
    const [seen] = await first.waitFor(1, 'message');
    first.close();
    await send('C0FE', frames.tempOk(4));
    await send('0ACE', frames.tempOk(5));
    const resumed = await open('?serial=C0FE', { authorization: alice.auth, 'last-event-id': seen!.id! });
    const [missedMessage] = await resumed.waitFor(1, 'message');
    expect(JSON.parse(missedMessage!.data).message.payload).toBe(frames.tempOk(4));
    await send('C0FE', frames.batteryOk(5));
    const messages = await resumed.waitFor(2, 'message');
    expect(messages.map((e) => JSON.parse(e.data).message.payload)).toEqual([frames.tempOk(4), frames.batteryOk(5)]);
  });

  it("serves the dashboard's session from its own origin only, and ends when the session ends", async () => {
    const cookie = await signIn(app, alice.email);
    const own = { cookie, origin: base, 'sec-fetch-site': 'same-origin' };
    expect((await open('', { cookie, origin: 'http://elsewhere.test', 'sec-fetch-site': 'cross-site' })).status).toBe(401);
    const session = await open('?serial=C0FE', own);
    const basic = await open('?serial=C0FE');
    expect(session.status).toBe(200);
    await app.context.streams.hub.ready();
    await send('C0FE', frames.tempHigh(9));
    await session.waitFor(1, 'message');
    const out = await app.server.inject({ method: 'DELETE', url: '/iot/developers/session.json', headers: sameOrigin(cookie) });
    expect(out.statusCode).toBeLessThan(300);
    // At the next heartbeat (1 s here) the session's stream ends; a Basic one goes on.
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('the stream outlived its session by 15 s')), 15_000).unref());
    await Promise.race([session.ended, late]);
    await send('C0FE', frames.tempOk(10));
    expect((await basic.waitFor(2, 'message')).map((e) => JSON.parse(e.data).message.payload)).toEqual([frames.tempHigh(9), frames.tempOk(10)]);
    expect(session.events.filter((e) => e.event === 'message')).toHaveLength(1);
    expect((await open('', own)).status).toBe(401);
  });

  it('ends a stream at the next heartbeat once its credential stops working: API key revoked, token regenerated, password changed', async () => {
    const carol = await createDeveloper(app, 'carol@example.com');
    const account = async () => (await app.context.repositories.accounts.byEmail(carol.email))!;
    const revoked = await app.context.apiKeys.create(await account(), { name: 'revoked' });
    const kept = await app.context.apiKeys.create(await account(), { name: 'kept' });
    const streams = {
      password: await open('', { authorization: carol.auth }),
      token: await open('', { authorization: `Basic ${carol.token}` }),
      revoked: await open('', { authorization: `Basic ${revoked.token}` }),
      kept: await open('', { authorization: `Basic ${kept.token}` }),
    };
    expect(Object.values(streams).map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const open_ = new Set(Object.keys(streams));
    for (const [name, stream] of Object.entries(streams)) void stream.ended.then(() => open_.delete(name));
    /** Waits for the stream to end, then for two more heartbeats on every stream still open: they go on. */
    const endsAlone = async (name: keyof typeof streams) => {
      const late = new Promise((_, reject) => setTimeout(() => reject(new Error(`the ${name} stream outlived its credential by 15 s`)), 15_000).unref());
      await Promise.race([streams[name].ended, late]);
      const still = [...open_].map((n) => streams[n as keyof typeof streams]);
      const counts = still.map((s) => s.comments.length);
      await Promise.all(still.map(async (s, i) => { while (s.comments.length < counts[i]! + 2) await new Promise((r) => setTimeout(r, 50)); }));
    };
    await app.context.apiKeys.revoke((await account()).id, revoked.key.id);
    await endsAlone('revoked');
    expect([...open_].sort()).toEqual(['kept', 'password', 'token']);
    await app.context.accounts.regenerateToken(await account());
    await endsAlone('token');
    expect([...open_].sort()).toEqual(['kept', 'password']);
    await app.context.accounts.updatePassword(await account(), 'Secret123', 'Secret456!', 'Secret456!');
    await endsAlone('password');
    expect([...open_]).toEqual(['kept']);
    // Reconnecting with what stopped working meets the 401 every other request gets.
    expect((await open('', { authorization: carol.auth })).status).toBe(401);
    expect((await open('', { authorization: `Basic ${revoked.token}` })).status).toBe(401);
  });

  it.runIf(dialect === 'postgres')('delivers an uplink ingested by another process within a second', async () => {
    const client = await open('?serial=C0FE');
    await app.context.streams.hub.ready();
    let other: ChildProcess | undefined;
    try {
      const started = await startSnsr(['serve', '--no-worker'], {
        SNSR_DATABASE_URL: app.context.config.databaseUrl,
        SNSR_NETWORK_TOKEN: 'network-token',
        SNSR_SECRET: 'test-secret',
        PORT: '0',
        HOST: '127.0.0.1',
        SNSR_MAX_EVENT_LOOP_DELAY_MS: '0',
      });
      other = started.child;
      const port = /listening on [^\s]*:(\d+)/.exec(started.output())?.[1];
      expect(port).toBeDefined();
      // The other process answers once the uplink is committed; from then on the clock runs. Of
      // three, the fastest must arrive within a second (a poll would not); none may take long,
      // however busy the test machine (the bench measures the p99).
      const latencies: number[] = [];
      for (const [i, frame] of [frames.batteryOk(6), frames.tempHigh(7), frames.tempOk(8)].entries()) {
        await send('C0FE', frame, `http://127.0.0.1:${port}`);
        const committedAt = Date.now();
        const events = await client.waitFor(i + 1, 'message', 5000);
        expect(JSON.parse(events[i]!.data)).toMatchObject({ module: 'C0FE', message: { payload: frame } });
        latencies.push(events[i]!.receivedAt - committedAt);
      }
      expect(Math.min(...latencies)).toBeLessThan(1000);
    } finally {
      other?.kill('SIGTERM');
    }
  }, 60_000);
});

describe.each(dialects)('GET /iot/devices/stream (%s)', (dialect) => {
  let app: TestApp;
  let base: string;
  let token: string;
  let developer: Awaited<ReturnType<typeof createDeveloper>>;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_STREAM_HEARTBEAT_S: '1', SNSR_MAX_EVENT_LOOP_DELAY_MS: '0' });
    await importCatalog(app);
    developer = await createDeveloper(app, 'alice@example.com');
    await app.context.modules.register(1, [{ serial: 'C0FE', key: '1A2B3C4D' }, { serial: '0ACE', key: '0000ACE0' }]);
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
    base = await app.server.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => app.close());

  it("sends the token's module only, and 401 without a token", async () => {
    const none = await openSse(`${base}/iot/devices/stream`);
    expect(none.status).toBe(401);
    expect((await openSse(`${base}/iot/devices/stream?device=0ACE`, { 'x-snsr-device-key': token })).status).toBe(404);
    const client = await openSse(`${base}/iot/devices/stream`, { 'x-snsr-device-key': token });
    try {
      expect(client.status).toBe(200);
      await app.context.streams.hub.ready();
      for (const [device, data, seq] of [['0ACE', '00000046', 1], ['C0FE', '01000046', 2]] as const) {
        const answer = await app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: { authorization: 'Bearer network-token' }, payload: { device, time: T0 + seq, data, seqNumber: seq } });
        expect(answer.statusCode).toBe(200);
      }
      const [event] = await client.waitFor(1, 'message');
      expect(JSON.parse(event!.data)).toMatchObject({ module: 'C0FE' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(client.events).toHaveLength(1);
    } finally {
      client.close();
    }
  });

  it('ends a device-token stream once the device key is rotated, and a developer one once the module is unregistered', async () => {
    const byToken = await openSse(`${base}/iot/devices/stream`, { 'x-snsr-device-key': token });
    const byDeveloper = await openSse(`${base}/iot/devices/stream?sn=0ACE`, { authorization: developer.auth });
    try {
      expect([byToken.status, byDeveloper.status]).toEqual([200, 200]);
      const late = (what: string) => new Promise((_, reject) => setTimeout(() => reject(new Error(`the ${what} stream went on for 15 s`)), 15_000).unref());
      await app.context.modules.rekey(1, 'C0FE');
      await Promise.race([byToken.ended, late('device-token')]);
      const heartbeats = byDeveloper.comments.length;
      while (byDeveloper.comments.length < heartbeats + 2) await new Promise((resolve) => setTimeout(resolve, 50));
      await app.context.modules.unregister(1, (await app.context.repositories.devices.bySerial('0ACE'))!.id, '0ACE');
      await Promise.race([byDeveloper.ended, late('developer')]);
    } finally {
      byToken.close();
      byDeveloper.close();
    }
  });
});
