import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../helpers/database.js';
import { importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { presentMessage } from '../../../src/wire/message.js';

const AUTH = { authorization: 'Bearer network-token' };
const T = 1_700_000_000;
const LEGACY_DATE = /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2}:\d{2} (AM|PM)$/;

/** Serials of the extra catalog modules, one per scenario so scenarios never share state. */
const EXTRA = ['A001', 'A002', 'A003', 'A004', 'A005', 'A006', 'A007', 'A008', 'A009', 'A00A', 'A00B', 'A00C', 'A00D', 'A00E'];

describe.each(dialects)('POST /network/sigfox/uplink (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    await app.context.repositories.modules.importCatalog(
      EXTRA.map((serial, i) => ({ serial, key: `0000${serial}`, pac: `${String(i).padStart(12, '0')}${serial}`, protocol: 'UDM23' as const })),
    );
  });
  afterAll(() => app.close());

  const db = () => app.context.storage.db;
  const post = (payload: unknown, headers: Record<string, string> = AUTH) =>
    app.server.inject({ method: 'POST', url: '/network/sigfox/uplink', headers, payload: payload as object });
  const form = (text: string) => post(text, { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' });
  const uplink = (device: string, seqNumber: number, data: string, extra: Record<string, unknown> = {}) => ({
    device,
    time: T + seqNumber * 600,
    data,
    seqNumber,
    station: '1A2B',
    rssi: -120.5,
    snr: 12.25,
    avgSnr: 11.5,
    lat: 48,
    lng: 2,
    duplicate: false,
    ack: false,
    ...extra,
  });
  const rows = async (module: string) => ({
    raw: await db().selectFrom('raw_messages').selectAll().where('module_serial', '=', module).orderBy('id').execute(),
    rinfos: await db()
      .selectFrom('rinfos')
      .innerJoin('raw_messages', 'raw_messages.id', 'rinfos.raw_id')
      .selectAll('rinfos')
      .where('raw_messages.module_serial', '=', module)
      .orderBy('rinfos.raw_id')
      .orderBy('rinfos.tap')
      .execute(),
    messages: await db().selectFrom('messages').selectAll().where('module_serial', '=', module).orderBy('id').execute(),
    devices: await db().selectFrom('devices').selectAll().where('module_serial', '=', module).orderBy('idx').execute(),
  });
  const device = (serial: string) => db().selectFrom('devices').selectAll().where('serial', '=', serial).executeTakeFirstOrThrow();
  const totals = async () => ({
    raw: Number((await db().selectFrom('raw_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
    messages: Number((await db().selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
  });

  it('answers 401 without the network token, with a wrong one, or with Basic credentials, storing nothing', async () => {
    const before = await totals();
    const body = uplink('C0FE', 1, '020300189167');
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token' }, { authorization: 'Basic bmV0d29yay10b2tlbg==' }, { authorization: 'Bearer' }]) {
      const response = await post(body, headers);
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
      expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: expect.stringMatching(/token/) });
    }
    expect(await totals()).toEqual(before);
  });

  it('answers 404 for a device that is not in the catalog, storing nothing', async () => {
    const before = await totals();
    const response = await post(uplink('FFFF', 1, '020300189167'));
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toMatch(/FFFF.*catalog/);
    expect(await totals()).toEqual(before);
  });

  it.each([
    ['a malformed JSON body', '{"device": "C0FE",', /not valid JSON/],
    ['no device', { time: T, data: '00' }, /device is required/],
    ['no time', { device: 'C0FE', data: '00' }, /time is required/],
    ['no data', { device: 'C0FE', time: T }, /data is required/],
    ['non-hex data', { device: 'C0FE', time: T, data: '0Z00' }, /data must match pattern/],
    ['an odd number of hex digits', { device: 'C0FE', time: T, data: '000' }, /data must match pattern/],
    ['over 12 bytes of data', { device: 'C0FE', time: T, data: '00'.repeat(13) }, /data must match pattern/],
    ['a non-numeric time', { device: 'C0FE', time: 'yesterday', data: '00' }, /time must be integer/],
    ['a fractional time', { device: 'C0FE', time: 1.5, data: '00' }, /time must be integer/],
    ['a non-hex device id', { device: 'C0FE!', time: T, data: '00' }, /device must match pattern/],
    ['a time beyond 32 bits', { device: 'C0FE', time: 2 ** 32, data: '00' }, /time must be <= 4294967295/],
    ['a negative sequence number', { device: 'C0FE', time: T, data: '00', seqNumber: -1 }, /seqNumber must be >= 0/],
    ['a sequence number beyond 31 bits', { device: 'C0FE', time: T, data: '00', seqNumber: 2 ** 31 }, /seqNumber must be <= 2147483647/],
    ['a non-numeric rssi', { device: 'C0FE', time: T, data: '00', rssi: 'loud' }, /rssi must be number/],
    ['an array body', [{ device: 'C0FE' }], /body must be object/],
  ])('answers 400 naming the problem for %s, storing nothing', async (_name, payload, message) => {
    const before = await totals();
    const response = await post(payload, typeof payload === 'string' ? { ...AUTH, 'content-type': 'application/json' } : AUTH);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: expect.stringMatching(message) });
    expect(await totals()).toEqual(before);
  });

  it('answers 400 for a non-numeric time sent form-encoded', async () => {
    const response = await form('device=C0FE&time=noon&data=020300189167');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/time must be integer/);
  });

  it('stores a new uplink as a raw message and a decoded message in the wire form history shows', async () => {
    const sent = Date.now();
    const response = await post(uplink('c0fe', 1, '020300189167'));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ uplink: 'new', frame: 'message', device: 'C0FE', type: 'keepalive:voltagetemp' });
    const { raw, rinfos, messages } = await rows('C0FE');
    expect(raw).toEqual([
      expect.objectContaining({ module_serial: 'C0FE', seq_number: 1, time_s: T + 600, data: '020300189167', snr: 12.25, avg_snr: 11.5, lat: 48, lng: 2 }),
    ]);
    expect(rinfos).toEqual([{ raw_id: raw[0].id, tap: '1A2B', rssi: -120.5, snr: 12.25 }]);
    expect(messages).toHaveLength(1);
    const wire = presentMessage(messages[0], 'C0FE');
    const when = messages[0].when_ms;
    expect(when).toBeGreaterThanOrEqual(sent);
    expect(when).toBeLessThanOrEqual(Date.now());
    expect(wire).toEqual({
      when,
      lvl: '-120.5',
      station: '1A2B',
      type: 'keepalive:voltagetemp',
      device: 'C0FE',
      extra: { message: '020300189167', time: T + 600, interval_h: 24, voltage_mv: 3300, temperature_c: 21.5 },
      contrib: { network: 'ON' },
      ctxt: {
        id: String(messages[0].device_id),
        serial: 'C0FE',
        index: 0,
        active: true,
        watched: false,
        alerts: 0,
        alerts_ack: 0,
        losts: 0,
        msgs: 1,
        firstseen: expect.stringMatching(LEGACY_DATE),
        lastseen: expect.stringMatching(LEGACY_DATE),
        battery: 'UNKNOWN',
        level: 'UNKNOWN',
        network: 'ON',
        tamper: 'UNKNOWN',
        temp: 'UNKNOWN',
        status: 'UNDEFINED',
        type: 'OTHER',
      },
      received: when,
      payload: '020300189167',
    });
    expect(messages[0]).toMatchObject({ frame_type: 'srv_frm_keepalive', code: 'keepalive_voltage_temp', entry_id: 0, stamp: 0, cpt: 2, retry: 0, raw_id: raw[0].id });
    expect(await device('C0FE')).toMatchObject({ msgs: 1, network: 'ON', firstseen: when, lastseen: when });
  });

  it('reads the uplink back through the device API: history and raw history', async () => {
    const token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
    const history = await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/history.json', headers: { 'x-snsr-device-key': token } });
    expect(history.statusCode).toBe(200);
    expect(history.json()[0]).toMatchObject({ type: 'keepalive:voltagetemp', device: 'C0FE', lvl: '-120.5', payload: '020300189167', contrib: { network: 'ON' } });
    const raw = await app.server.inject({ method: 'GET', url: '/iot/devices/msgs/sfx/history.json', headers: { 'x-snsr-device-key': token } });
    expect(raw.json()[0]).toMatchObject({ device: 'C0FE', time: T + 600, data: '020300189167', snr: '12.25', seqNumber: 1, rinfos: [{ tap: '1A2B', rssi: '-120.5', snr: '12.25' }] });
  });

  it('merges copies heard by other stations into one raw message with the best SNR, decoded and counted once', async () => {
    const base = uplink('A001', 1, '25000632');
    const answers = [
      await post({ ...base, station: '0B01', rssi: -130, snr: 5.5 }),
      await post({ ...base, station: '0B02', rssi: -110, snr: 21.75, duplicate: true }),
      await post({ ...base, station: '0B03', rssi: -125, snr: 9, duplicate: true }),
    ];
    expect(answers.map((a) => a.json())).toEqual([
      { uplink: 'new', frame: 'message', device: 'A001', type: 'event:templow' },
      { uplink: 'duplicate' },
      { uplink: 'duplicate' },
    ]);
    const { raw, rinfos, messages } = await rows('A001');
    expect(raw).toHaveLength(1);
    expect(raw[0].snr).toBe(21.75);
    expect(rinfos.map((r) => [r.tap, r.rssi, r.snr])).toEqual([['0B01', -130, 5.5], ['0B02', -110, 21.75], ['0B03', -125, 9]]);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ station: '0B01', lvl: -130, type: 'event:templow', contrib: '{"temp":"LOW"}' });
    expect(await device('A001')).toMatchObject({ msgs: 1, temp: 'LOW', losts: 0 });
  });

  it('changes nothing when a callback is replayed, even from several stations', async () => {
    const base = uplink('A002', 7, '020300189167');
    await post({ ...base, station: '0C01', snr: 10 });
    await post({ ...base, station: '0C02', snr: 15 });
    const before = await rows('A002');
    for (const station of ['0C01', '0C02', '0c01']) {
      const response = await post({ ...base, station, snr: station === '0C02' ? 15 : 10 });
      expect(response.json()).toEqual({ uplink: 'replay' });
    }
    expect(await rows('A002')).toEqual(before);
  });

  it('identifies an uplink without a sequence number by its time', async () => {
    const { seqNumber: _seq, ...noSeq } = uplink('A003', 1, '020300189167');
    expect((await post(noSeq)).json().uplink).toBe('new');
    expect((await post({ ...noSeq, station: '0D02' })).json().uplink).toBe('duplicate');
    expect((await post({ ...noSeq, time: noSeq.time + 1, data: '030300189167' })).json().uplink).toBe('new');
    const { raw, messages } = await rows('A003');
    expect(raw.map((r) => [r.seq_number, r.time_s])).toEqual([[null, T + 600], [null, T + 601]]);
    expect(messages).toHaveLength(2);
  });

  it('takes a sequence number heard again at another time for a new uplink, rewriting nothing: Sigfox numbers wrap at 4096', async () => {
    await post(uplink('A004', 5, '020300189167'));
    const later = await post({ ...uplink('A004', 5, '030300189167'), time: T + 5 * 600 + 86_400 });
    expect(later.json()).toMatchObject({ uplink: 'new', frame: 'message' });
    const { raw, messages } = await rows('A004');
    expect(raw.map((r) => [r.seq_number, r.time_s, r.data])).toEqual([[5, T + 5 * 600, '020300189167'], [5, T + 5 * 600 + 86_400, '030300189167']]);
    expect(messages).toHaveLength(2);
  });

  it('keeps a repetition in raw history only, unless its original never arrived', async () => {
    expect((await post(uplink('A005', 1, '25000632'))).json().frame).toBe('message');
    // A6: retry bit, same stamp (2), next counter: the same event sent again.
    expect((await post(uplink('A005', 2, 'A6000632'))).json()).toEqual({ uplink: 'new', frame: 'repetition' });
    // Stamp 3 with the retry bit, but no stamp-3 original was heard: the first copy heard is the message.
    expect((await post(uplink('A005', 3, 'B7000632'))).json()).toMatchObject({ uplink: 'new', frame: 'message', type: 'event:templow' });
    const { raw, messages } = await rows('A005');
    expect(raw).toHaveLength(3);
    expect(messages.map((m) => [m.frame, m.retry])).toEqual([['25000632', 0], ['B7000632', 1]]);
    expect(await device('A005')).toMatchObject({ msgs: 2, losts: 0 });
  });

  it('keeps an invalid frame in raw history only and says why', async () => {
    const response = await post(uplink('A006', 1, '000020'));
    expect(response.json()).toEqual({ uplink: 'new', frame: 'invalid', reason: expect.stringMatching(/event code 0x20/) });
    const { raw, messages } = await rows('A006');
    expect(raw).toHaveLength(1);
    expect(messages).toHaveLength(0);
    expect(await device('A006')).toMatchObject({ msgs: 0, lastseen: null });
  });

  it('creates children when first heard of, registers them, and routes gateway events to the child named', async () => {
    // entry 1 registers: Sigfox id 0001ABCD, class 5 (spec vector V14)
    expect((await post(uplink('A007', 1, '011223010200050001ABCD'))).json()).toMatchObject({ frame: 'message', device: 'A007/1', type: 'register:register' });
    // a keep-alive of child 1, forwarded by the gateway
    expect((await post(uplink('A007', 2, '0213001891670000'.slice(0, 12)))).json()).toMatchObject({ device: 'A007/1', type: 'keepalive:voltagetemp' });
    // the gateway's own CONNECTION_LOST about child 2, then RSSI_OK about child 1
    expect((await post(uplink('A007', 3, '03000202'))).json()).toMatchObject({ device: 'A007/2', type: 'event:connectionlost' });
    expect((await post(uplink('A007', 4, '14000501'))).json()).toMatchObject({ device: 'A007/1', type: 'event:rssiok' });
    const { devices, messages } = await rows('A007');
    expect(devices.map((d) => [d.serial, d.idx, d.uid, d.category, d.msgs, d.network, d.level])).toEqual([
      ['A007', 0, null, null, 0, 'UNKNOWN', 'UNKNOWN'],
      ['A007/1', 1, '0001ABCD', '5', 3, 'ON', 'ON'],
      ['A007/2', 2, null, null, 1, 'OFF', 'UNKNOWN'],
    ]);
    // The gateway was heard each time; child 2 never was (the gateway reported it lost). Seen is the
    // reception time: the `when` of the device's last message heard.
    expect(devices[0].lastseen).toBe(messages[3].when_ms);
    expect(devices[1].lastseen).toBe(messages[1].when_ms);
    expect(devices[2]).toMatchObject({ firstseen: null, lastseen: null });
    expect(messages.map((m) => [m.entry_id, JSON.parse(m.contrib)])).toEqual([
      [1, { uid: '0001ABCD', category: '5' }],
      [1, { network: 'ON' }],
      [0, { network: 'OFF' }],
      [0, { level: 'ON' }],
    ]);
    expect(JSON.parse(messages[2].ctxt)).toMatchObject({ network: 'OFF', msgs: 1 });
    expect(JSON.parse(messages[2].ctxt)).not.toHaveProperty('uid');
  });

  it('counts lost uplinks from gaps in the 4-bit counter, across its wrap, and finds a late one again', async () => {
    // keep-alives with counters 14, 15, then 3 (1 and 2 and 0 lost: 3 uplinks), then 4
    for (const [seq, cpt] of [[1, 14], [2, 15], [6, 3], [7, 4]]) {
      await post(uplink('A008', seq, `0${cpt.toString(16)}0300189167`.toUpperCase()));
    }
    expect(await device('A008')).toMatchObject({ losts: 3, msgs: 4 });
    expect((await db().selectFrom('modules').select('last_cpt').where('serial', '=', 'A008').executeTakeFirstOrThrow()).last_cpt).toBe(4);
    // counter 0 arrives late (its time is older than the newest uplink): it was counted lost, and is not anymore
    await post(uplink('A008', 5, '000300189167'));
    expect(await device('A008')).toMatchObject({ losts: 2, msgs: 5 });
    expect((await db().selectFrom('modules').select('last_cpt').where('serial', '=', 'A008').executeTakeFirstOrThrow()).last_cpt).toBe(4);
    // duplicates are the same emission: they do not move the counter
    await post({ ...uplink('A008', 7, '040300189167'), station: '0E09' });
    expect(await device('A008')).toMatchObject({ losts: 2, msgs: 5 });
  });

  it('answers a bidirectional uplink with the module bidir value, or 204 without one', async () => {
    const none = await post(uplink('A009', 1, '020300189167', { ack: true }));
    expect(none.statusCode).toBe(204);
    expect(none.body).toBe('');
    const own = await device('A009');
    await app.context.repositories.devices.setFlags(own.id, { bidirval: '0123456789abcdef' });
    const answer = await post(uplink('a009', 2, '030300189167', { ack: true }));
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ a009: { downlinkData: '0123456789abcdef' } });
    // the message was stored all the same, and a retried bidir callback gets the same answer
    expect((await rows('A009')).messages).toHaveLength(2);
    expect((await post(uplink('a009', 2, '030300189167', { ack: true }))).json()).toEqual({ a009: { downlinkData: '0123456789abcdef' } });
    await app.context.repositories.devices.setFlags(own.id, { bidirval: 'not hex' });
    expect((await post(uplink('A009', 3, '040300189167', { ack: true }))).statusCode).toBe(204);
  });

  it('accepts the callback form-encoded, an empty variable being an absent one', async () => {
    const response = await form(`device=A00A&time=${T}&data=020300189167&seqNumber=9&station=0F01&rssi=-99.5&snr=&avgSnr=&lat=&lng=&duplicate=false&ack=false`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ uplink: 'new', frame: 'message' });
    const { raw, rinfos } = await rows('A00A');
    expect(raw[0]).toMatchObject({ seq_number: 9, time_s: T, snr: null, avg_snr: null, lat: null });
    expect(rinfos).toEqual([{ raw_id: raw[0].id, tap: '0F01', rssi: -99.5, snr: null }]);
  });

  it('switches a module to the protocol its REGISTER announces, then decodes with it', async () => {
    // BEEF is UDM22 in the catalog; this REGISTER is UDM 2.3 (9 payload bytes, version 0x23)
    expect((await post(uplink('BEEF', 1, '010223010200010000BEEF'))).json()).toMatchObject({ frame: 'message', type: 'register:register' });
    expect((await app.context.repositories.modules.bySerial('BEEF'))?.protocol).toBe('UDM23');
    expect((await post(uplink('BEEF', 2, '020300189167'))).json()).toMatchObject({ frame: 'message', type: 'keepalive:voltagetemp' });
    // and back: a UDM 2.2 REGISTER (7 payload bytes, version 0x22)
    await post(uplink('BEEF', 3, '03022200010000BEEF'));
    expect((await app.context.repositories.modules.bySerial('BEEF'))?.protocol).toBe('UDM22');
    expect(await device('BEEF')).toMatchObject({ uid: '0000BEEF', category: '1' });
  });

  it('is documented in the OpenAPI document, with its Bearer scheme and every answer', async () => {
    const spec = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = spec.paths['/network/sigfox/uplink'].post;
    expect(operation.security).toEqual([{ network: [] }]);
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '204', '400', '401', '404', '503']);
    expect(Object.keys(operation.requestBody.content['application/json'].schema.properties)).toEqual(
      expect.arrayContaining(['device', 'time', 'data', 'seqNumber', 'station', 'rssi', 'snr', 'avgSnr', 'lat', 'lng', 'duplicate', 'ack']),
    );
  });

  it('stores uplinks of catalog modules that no account has registered', async () => {
    expect((await app.context.repositories.modules.bySerial('A00B'))?.accountId).toBeNull();
    expect((await post(uplink('A00B', 1, '020300189167'))).statusCode).toBe(200);
    expect((await rows('A00B')).messages).toHaveLength(1);
  });

  it('queues one delivery per attached app with a callback, for messages only', async () => {
    const { account } = await app.context.accounts.create('hooks@example.com', 'Secret123');
    await app.context.modules.register(account.id, [{ serial: 'A00C', key: '0000A00C' }]);
    const hooked = await app.context.storage.db
      .insertInto('apps')
      .values({ account_id: account.id, name: 'hooked', description: '', callback_url: 'https://example.com/hook', key: 'k', secret: 's', created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const silent = await app.context.storage.db
      .insertInto('apps')
      .values({ account_id: account.id, name: 'silent', description: '', callback_url: null, key: 'k2', secret: 's2', created_at: 0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await app.context.storage.db.insertInto('app_modules').values([hooked, silent].map((a) => ({ app_id: a.id, module_serial: 'A00C', attached_at: 0 }))).execute();
    await post(uplink('A00C', 1, '25000632'));
    await post({ ...uplink('A00C', 1, '25000632'), station: '0A0A' }); // duplicate
    await post(uplink('A00C', 2, 'A6000632')); // repetition
    await post(uplink('A00C', 3, '000020')); // invalid
    const { messages } = await rows('A00C');
    const deliveries = await db().selectFrom('deliveries').selectAll().where('app_id', 'in', [hooked.id, silent.id]).execute();
    expect(deliveries).toEqual([expect.objectContaining({ app_id: hooked.id, message_id: messages[0].id, status: 'pending' })]);
  });
});

describe.each(dialects)('POST /network/sigfox/uplink without SNSR_NETWORK_TOKEN (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_NETWORK_TOKEN: '' });
    await importCatalog(app);
  });
  afterAll(() => app.close());

  it('refuses every uplink with 503 saying the token is not set', async () => {
    const response = await app.server.inject({
      method: 'POST',
      url: '/network/sigfox/uplink',
      headers: { authorization: 'Bearer anything' },
      payload: { device: 'C0FE', time: T, data: '020300189167' },
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ statusCode: 503, error: 'Service Unavailable', message: expect.stringMatching(/SNSR_NETWORK_TOKEN is not set/) });
    expect(await app.context.storage.db.selectFrom('raw_messages').selectAll().execute()).toEqual([]);
  });
});
