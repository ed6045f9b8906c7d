import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { dialects } from '../helpers/database.js';
import { importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { decode } from '../../src/protocol/udm/index.js';
import type { Frame } from '../../src/protocol/udm/index.js';
import { DomainError } from '../../src/domain/errors.js';
import { IngestStore } from '../../src/ingest/ingest-store.js';
import { runPipeline } from '../../src/ingest/pipeline.js';
import { resolveModule } from '../../src/ingest/steps/resolve-module.js';
import { storeRaw } from '../../src/ingest/steps/store-raw.js';
import { updateModule } from '../../src/ingest/steps/update-module.js';
import { detectRepetition } from '../../src/ingest/steps/detect-repetition.js';
import { resolveDevice } from '../../src/ingest/steps/resolve-device.js';
import { applyDeviceState } from '../../src/ingest/steps/apply-state.js';
import { storeMessage } from '../../src/ingest/steps/store-message.js';
import type { Uplink } from '../../src/ingest/uplink.js';

const T = 1_700_000_000;
const frame = (hex: string): Frame => {
  const result = decode(hex, 'UDM23');
  if (!result.ok) throw new Error(result.reason);
  return result.frame;
};
const dateText = (ms: number) => `at ${ms}`;
const env = { log: pino({ level: 'silent' }), dateText, now: () => 42 };

describe.each(dialects)('ingest steps (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
  });
  afterAll(() => app.close());

  /** Runs steps on one transaction, as the pipeline does. */
  const inTransaction = <T>(body: (store: IngestStore) => Promise<T>) =>
    app.context.storage.db.transaction().execute((trx) => body(new IngestStore(trx, app.context.storage.capabilities.skipLocked)));
  const ingest = (uplink: Uplink) => inTransaction((store) => runPipeline(store, uplink, env));
  const moduleOf = (serial: string) => inTransaction((store) => resolveModule(store, { device: serial, time: 0, data: '' }));
  const db = () => app.context.storage.db;

  it('resolveModule finds the module case-insensitively, with its own device and the newest uplink', async () => {
    const module = await moduleOf('0ace');
    expect(module).toMatchObject({ serial: '0ACE', protocol: 'UDM23', lastCpt: null, lastSeq: null, lastTimeS: null, lastWhenMs: null, device: { serial: '0ACE', idx: 0, lastseen: null } });
    await ingest({ device: '0ACE', time: T + 5, data: '020300189167', seqNumber: 1 });
    await ingest({ device: '0ACE', time: T + 3, data: '030300189167', seqNumber: 2 });
    // The second uplink arrived late: it does not move the counters back. Both were received at 42
    // by the clock: the second message's `when` (and the device's lastseen) moved on to 43.
    expect(await moduleOf('0ACE')).toMatchObject({ lastCpt: 2, lastSeq: 1, lastTimeS: T + 5, lastWhenMs: 43, device: { lastseen: 43 } });
  });

  it('resolveModule rejects an unknown device with a not-found error', async () => {
    await expect(moduleOf('ABCDEF')).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/ABCDEF/) });
    await expect(moduleOf('ABCDEF')).rejects.toBeInstanceOf(DomainError);
  });

  it('storeRaw stores a new uplink once and tells a new station from a replay', async () => {
    const copy = (station: string, snr: number): Uplink => ({ device: 'C0FE', time: T, data: '25000632', seqNumber: 100, station, rssi: -100, snr });
    const outcomes = await inTransaction(async (store) => {
      const module = await resolveModule(store, copy('X', 0));
      const results = [];
      for (const uplink of [copy('0001', 3), copy('0002', 8.5), copy('0001', 3), copy('0002', 2)]) results.push(await storeRaw(store, module, uplink, 99));
      return results;
    });
    expect(outcomes.map((o) => o.outcome)).toEqual(['new', 'duplicate', 'replay', 'replay']);
    expect(new Set(outcomes.map((o) => o.rawId)).size).toBe(1);
    const raw = await db().selectFrom('raw_messages').selectAll().where('id', '=', outcomes[0].rawId).executeTakeFirstOrThrow();
    expect(raw).toMatchObject({ snr: 8.5, received_at: 99, data: '25000632', seq_number: 100 });
    const rinfos = await db().selectFrom('rinfos').select(['tap', 'snr']).where('raw_id', '=', raw.id).orderBy('tap').execute();
    expect(rinfos).toEqual([{ tap: '0001', snr: 3 }, { tap: '0002', snr: 8.5 }]);
  });

  it('storeRaw keeps the best reception of a station that reports again', async () => {
    const rawId = await inTransaction(async (store) => {
      const module = await resolveModule(store, { device: 'C0FE', time: 0, data: '' });
      const base: Uplink = { device: 'C0FE', time: T + 60, data: '25000632', seqNumber: 101, station: '0003', rssi: -130, snr: 1 };
      const { rawId } = await storeRaw(store, module, base, 1);
      await storeRaw(store, module, { ...base, rssi: -120, snr: 4 }, 2);
      return rawId;
    });
    expect(await db().selectFrom('rinfos').select(['tap', 'rssi', 'snr']).where('raw_id', '=', rawId).execute()).toEqual([{ tap: '0003', rssi: -120, snr: 4 }]);
    expect((await db().selectFrom('raw_messages').select('snr').where('id', '=', rawId).executeTakeFirstOrThrow()).snr).toBe(4);
  });

  it('updateModule counts gaps on the module device and moves the counter, not for a late uplink (written by store.updateModule)', async () => {
    const state = async () => {
      const module = await moduleOf('BEEF');
      return [module.lastCpt, module.device.losts];
    };
    // Without a sequence number, the frame's 4-bit counter; a late uplink is one older than the newest by network time.
    const step = (hex: string, time: number) =>
      inTransaction(async (store) => {
        const uplink = { device: 'BEEF', time, data: hex };
        await store.updateModule('BEEF', await updateModule(store, await resolveModule(store, uplink), uplink, frame(hex)));
      });
    await step('050300189167', T);
    expect(await state()).toEqual([5, 0]);
    await step('090300189167', T + 10);
    expect(await state()).toEqual([9, 3]);
    await step('070300189167', T + 5);
    expect(await state()).toEqual([9, 2]);
    const register = { device: 'BEEF', time: T + 20, data: '0A0300189167' };
    await inTransaction(async (store) => store.updateModule('BEEF', await updateModule(store, await resolveModule(store, register), register, frame('0A0300189167'), 'UDM23')));
    expect((await app.context.repositories.modules.bySerial('BEEF'))?.protocol).toBe('UDM23');
  });

  it('detectRepetition finds the original among the recent messages, only for frames with the retry bit', async () => {
    await ingest({ device: 'C0FE', time: T + 200, data: '35000632', seqNumber: 200 });
    const check = (hex: string) => inTransaction(async (store) => detectRepetition(store, await resolveModule(store, { device: 'C0FE', time: 0, data: '' }), frame(hex), hex));
    expect(await check('B6000632')).toBe(true);
    expect(await check('36000632')).toBe(false);
    expect(await check('C6000632')).toBe(false);
  });

  it('resolveDevice creates a child once, and applyDeviceState updates it and the gateway', async () => {
    const run = (hex: string, time: number) =>
      inTransaction(async (store) => {
        const module = await resolveModule(store, { device: 'C0FE', time, data: hex });
        const concerned = await resolveDevice(store, module, frame(hex));
        return applyDeviceState(store, module, frame(hex), concerned, time * 1000);
      });
    const first = await run('47000203', T + 300);
    expect(first.contrib).toEqual({ network: 'OFF' });
    expect(first.device).toMatchObject({ serial: 'C0FE/3', idx: 3, msgs: 1, network: 'OFF', firstseen: null });
    const second = await run('043300189167', T + 301);
    expect(second.device).toMatchObject({ id: first.device.id, msgs: 2, network: 'ON', firstseen: (T + 301) * 1000, lastseen: (T + 301) * 1000 });
    const children = await db().selectFrom('devices').select('serial').where('module_serial', '=', 'C0FE').where('idx', '=', 3).execute();
    expect(children).toHaveLength(1);
    expect((await app.context.repositories.devices.bySerial('C0FE'))?.lastseen).toEqual(new Date((T + 301) * 1000));
  });

  it('storeMessage stores the message with its ctxt and queues the outbox rows in the same transaction', async () => {
    const { account } = await app.context.accounts.create('steps@example.com', 'Secret123');
    // Held without a new registration, which would reset the device state the earlier steps built.
    await db().updateTable('modules').set({ account_id: account.id }).where('serial', '=', '0ACE').execute();
    const hook = await db()
      .insertInto('apps')
      .values({ account_id: account.id, name: 'a', description: '', callback_url: 'https://example.com/h', key: 'k', secret: 's', created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db().insertInto('app_modules').values({ app_id: hook.id, module_serial: '0ACE', attached_at: 0 }).execute();
    const uplink: Uplink = { device: '0ACE', time: T + 400, data: '25000632', station: '0a0b', rssi: -111 };
    const stored = await inTransaction(async (store) => {
      const module = await resolveModule(store, uplink);
      const { rawId } = await storeRaw(store, module, uplink, 5);
      const changes = { newest: { cpt: 5, seq: null, timeS: T + 400 } };
      return storeMessage(store, module, { uplink, rawId, whenMs: 1_800_000_000_123, frame: frame('25000632'), device: module.device, contrib: { temp: 'LOW' }, dateText, changes });
    });
    // The module's state is written with the message: its counters and the message's `when`.
    expect(await db().selectFrom('modules').select(['last_cpt', 'last_time_s', 'last_when_ms']).where('serial', '=', '0ACE').executeTakeFirstOrThrow()).toEqual({
      last_cpt: 5,
      last_time_s: T + 400,
      last_when_ms: 1_800_000_000_123,
    });
    const row = await db().selectFrom('messages').selectAll().where('id', '=', stored.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ type: 'event:templow', station: '0A0B', lvl: -111, when_ms: 1_800_000_000_123, time_s: T + 400, frame: '25000632', code: 'event_temp_low', stamp: 2, cpt: 5 });
    expect(JSON.parse(row.custom)).toEqual({ temperature_c: -5 });
    expect(JSON.parse(row.ctxt)).toMatchObject({ msgs: 2, lastseen: 'at 43' });
    expect(await db().selectFrom('deliveries').select(['app_id', 'message_id']).execute()).toEqual([{ app_id: hook.id, message_id: stored.id }]);
  });

  it('runPipeline writes nothing for an unknown device', async () => {
    await expect(ingest({ device: 'FEED', time: T, data: '25000632', seqNumber: 1 })).rejects.toMatchObject({ code: 'not_found' });
    expect(await db().selectFrom('raw_messages').selectAll().where('module_serial', '=', 'FEED').execute()).toEqual([]);
  });
});
