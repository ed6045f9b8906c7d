import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dialects } from '../../helpers/database.js';
import { startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';

const AUTH = { authorization: 'Bearer network-token' };
const T = 1_700_000_000;

interface Send {
  seq?: number;
  /** network time, seconds after T */
  at: number;
  station?: string;
  /** the frame; a keep-alive whose 4-bit counter follows the sequence number by default */
  data?: string;
  /** what the answer's `uplink` must say */
  expect: 'new' | 'duplicate' | 'replay';
}

interface Scenario {
  name: string;
  sends: Send[];
  /** raw messages stored, as [seqNumber, seconds after T], in insertion order */
  raw: [number | null, number][];
  messages: number;
  losts: number;
  rinfos?: number;
}

const keepAlive = (cpt: number) => `0${(cpt % 16).toString(16).toUpperCase()}0300189167`;

const SCENARIOS: Scenario[] = [
  {
    name: 'a wrap from 4095 to 0 is no loss',
    sends: [{ seq: 4094, at: 0, expect: 'new' }, { seq: 4095, at: 600, expect: 'new' }, { seq: 0, at: 1200, expect: 'new' }, { seq: 1, at: 1800, expect: 'new' }],
    raw: [[4094, 0], [4095, 600], [0, 1200], [1, 1800]],
    messages: 4,
    losts: 0,
  },
  {
    name: 'a gap across the wrap counts the skipped numbers',
    sends: [{ seq: 4093, at: 0, expect: 'new' }, { seq: 1, at: 3000, expect: 'new' }],
    raw: [[4093, 0], [1, 3000]],
    messages: 2,
    losts: 3,
  },
  {
    name: 'a device reset is no loss, and its numbers are new uplinks',
    sends: [{ seq: 700, at: 0, expect: 'new' }, { seq: 701, at: 600, expect: 'new' }, { seq: 0, at: 900, expect: 'new' }, { seq: 1, at: 1500, expect: 'new' }],
    raw: [[700, 0], [701, 600], [0, 900], [1, 1500]],
    messages: 4,
    losts: 0,
  },
  {
    name: 'a replay after a minute and after newer uplinks changes nothing',
    sends: [{ seq: 7, at: 0, expect: 'new' }, { seq: 8, at: 60, expect: 'new' }, { seq: 7, at: 0, expect: 'replay' }, { seq: 8, at: 60, expect: 'replay' }],
    raw: [[7, 0], [8, 60]],
    messages: 2,
    losts: 0,
  },
  {
    name: 'the same sequence number at another time is a new uplink (the counter came round)',
    sends: [{ seq: 9, at: 0, expect: 'new' }, { seq: 9, at: 86_400, data: keepAlive(3), expect: 'new' }, { seq: 9, at: 0, expect: 'replay' }],
    raw: [[9, 0], [9, 86_400]],
    messages: 2,
    losts: 0,
  },
  {
    name: 'two uplinks in one network second are two messages, in either order',
    sends: [{ seq: 19, at: 0, expect: 'new' }, { seq: 21, at: 600, expect: 'new' }, { seq: 20, at: 600, expect: 'new' }, { seq: 22, at: 600, expect: 'new' }],
    raw: [[19, 0], [21, 600], [20, 600], [22, 600]],
    messages: 4,
    losts: 0,
  },
  {
    name: 'a late delivery is found again and counted once',
    sends: [{ seq: 30, at: 0, expect: 'new' }, { seq: 32, at: 1200, expect: 'new' }, { seq: 31, at: 600, expect: 'new' }, { seq: 33, at: 1800, expect: 'new' }],
    raw: [[30, 0], [32, 1200], [31, 600], [33, 1800]],
    messages: 4,
    losts: 0,
  },
  {
    name: 'a real gap is counted',
    sends: [{ seq: 40, at: 0, expect: 'new' }, { seq: 44, at: 2400, expect: 'new' }],
    raw: [[40, 0], [44, 2400]],
    messages: 2,
    losts: 3,
  },
  {
    name: 'copies from other stations merge into one raw message, replays of a copy change nothing',
    sends: [
      { seq: 50, at: 0, station: '0B01', expect: 'new' },
      { seq: 50, at: 0, station: '0B02', expect: 'duplicate' },
      { seq: 50, at: 0, station: '0B03', expect: 'duplicate' },
      { seq: 50, at: 0, station: '0B02', expect: 'replay' },
    ],
    raw: [[50, 0]],
    messages: 1,
    losts: 0,
    rinfos: 3,
  },
  {
    name: 'without a sequence number, time and frame identify the uplink',
    sends: [
      { at: 0, data: keepAlive(1), expect: 'new' },
      { at: 0, data: keepAlive(1), station: '0B09', expect: 'duplicate' },
      { at: 0, data: keepAlive(2), expect: 'new' },
      { at: 0, data: keepAlive(1), expect: 'replay' },
    ],
    raw: [[null, 0], [null, 0]],
    messages: 2,
    losts: 0,
    rinfos: 3,
  },
];

describe.each(dialects)('uplink identity (%s)', (dialect) => {
  let app: TestApp;
  const serials = SCENARIOS.map((_, i) => `1D${i.toString(16).toUpperCase().padStart(2, '0')}`);
  beforeAll(async () => {
    app = await startApp(dialect);
    const { context } = app;
    await context.repositories.modules.importCatalog(
      [...serials, 'FA57'].map((serial, i) => ({ serial, key: `0000${serial}`, pac: `${String(i).padStart(12, '0')}${serial}`, protocol: 'UDM23' as const })),
    );
    const { account } = await context.accounts.create('identity@example.com', 'Secret123');
    await context.modules.register(account.id, serials.map((serial) => ({ serial, key: `0000${serial}` })));
    const hooked = await context.storage.db
      .insertInto('apps')
      .values({ account_id: account.id, name: 'hooked', description: '', callback_url: 'https://example.com/hook', key: 'k', secret: 's', created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await context.storage.db.insertInto('app_modules').values(serials.map((serial) => ({ app_id: hooked.id, module_serial: serial, attached_at: 0 }))).execute();
  });
  afterAll(() => app.close());

  const db = () => app.context.storage.db;
  const post = (payload: object) => app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers: AUTH, payload });

  it.each(SCENARIOS.map((scenario, i) => [scenario.name, scenario, i] as const))('%s', async (_name, scenario, i) => {
    const serial = serials[i];
    for (const send of scenario.sends) {
      const response = await post({
        device: serial,
        time: T + send.at,
        data: send.data ?? keepAlive(send.seq ?? 0),
        ...(send.seq !== undefined && { seqNumber: send.seq }),
        station: send.station ?? '1A2B',
        rssi: -120,
        snr: 10,
      });
      expect(response.statusCode, JSON.stringify(send)).toBe(200);
      expect(response.json().uplink, JSON.stringify(send)).toBe(send.expect);
    }
    const raw = await db().selectFrom('raw_messages').select(['id', 'seq_number', 'time_s']).where('module_serial', '=', serial).orderBy('id').execute();
    expect(raw.map((r) => [r.seq_number, r.time_s - T])).toEqual(scenario.raw);
    const messages = await db().selectFrom('messages').select(['id', 'when_ms', 'time_s']).where('module_serial', '=', serial).orderBy('id').execute();
    expect(messages).toHaveLength(scenario.messages);
    // `when` is the reception time: strictly increasing in the order messages were stored.
    for (let n = 1; n < messages.length; n++) expect(messages[n].when_ms).toBeGreaterThan(messages[n - 1].when_ms);
    const device = await db().selectFrom('devices').select(['losts', 'msgs']).where('serial', '=', serial).executeTakeFirstOrThrow();
    expect(device).toEqual({ losts: scenario.losts, msgs: scenario.messages });
    const deliveries = await db().selectFrom('deliveries').select('message_id').where('message_id', 'in', [0, ...messages.map((m) => m.id)]).execute();
    expect(deliveries).toHaveLength(scenario.messages);
    if (scenario.rinfos !== undefined) {
      const rinfos = await db().selectFrom('rinfos').select('tap').where('raw_id', 'in', raw.map((r) => r.id)).execute();
      expect(rinfos).toHaveLength(scenario.rinfos);
    }
  });

  it('answers 2xx to any sequence of uplinks built from clashing fields, storing each identity once', async () => {
    const send = fc.record({
      seq: fc.option(fc.constantFrom(0, 1, 4095), { nil: undefined }),
      at: fc.constantFrom(0, 1, 600),
      data: fc.constantFrom('020300189167', '030300189167', '25000632', '000020', ''),
      station: fc.constantFrom('0001', '0002', undefined),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(send, { minLength: 1, maxLength: 6 }), async (sends) => {
        await app.context.repositories.messages.clearModule('FA57');
        for (const s of sends) {
          const response = await post({ device: 'FA57', time: T + s.at, data: s.data, ...(s.seq !== undefined && { seqNumber: s.seq }), ...(s.station && { station: s.station }) });
          expect(response.statusCode, JSON.stringify(s)).toBeLessThan(300);
        }
        const identities = new Set(sends.map((s) => (s.seq !== undefined ? `${s.seq}@${s.at}` : `-@${s.at}@${s.data.toUpperCase()}`)));
        const raw = await db().selectFrom('raw_messages').select('id').where('module_serial', '=', 'FA57').execute();
        expect(raw).toHaveLength(identities.size);
      }),
      { numRuns: 25 },
    );
  });
});
