import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../../src/config.js';
import { createContext } from '../../../src/context.js';
import { buildServer } from '../../../src/http/server.js';
import { legacyDate } from '../../../src/wire/legacy-date.js';
import { messageBody, presentMessage } from '../../../src/wire/message.js';
import { callbackBody } from '../../../src/delivery/callback-body.js';
import { dialects } from '../../helpers/database.js';
import { importCatalog, startApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { NO_SHEDDING } from '../../helpers/cli.js';
import { frames } from '../../helpers/uplinks.js';

const T0 = Date.UTC(2026, 2, 29, 0, 30) / 1000;

/**
 * Ingestion stores each message's wire form (`body`) once, and history sends it as stored: the
 * stored text must be exactly what the presenters build from the message's columns, and history
 * must answer the same bytes whether it reads stored bodies or builds them (rows stored before the
 * column existed, or written by tools that leave it empty).
 */
describe.each(dialects)('stored message bodies (%s)', (dialect) => {
  let app: TestApp;
  let token: string;
  beforeAll(async () => {
    app = await startApp(dialect, { SNSR_TIMEZONE: 'Europe/Paris' });
    await importCatalog(app);
    const sent = [
      { data: frames.keepAlive(0), rssi: -120.25, station: '0a1b' },
      { data: frames.tempHigh(1, 2), rssi: -131, station: '7F00' },
      { data: frames.batteryLow(2), rssi: undefined, station: undefined },
      { data: frames.keepAlive(3, 2, 12), rssi: -99.5, station: '1B2C' },
      { data: frames.tempOk(4, 2), rssi: -140, station: 'FFFF' },
    ];
    for (const [i, uplink] of sent.entries()) {
      const answer = await app.server.inject({
        method: 'POST',
        url: '/network/sigfox/uplink',
        headers: { authorization: 'Bearer network-token' },
        payload: { device: 'C0FE', time: T0 + i * 3600, seqNumber: i, snr: 10, ...uplink },
      });
      expect(answer.statusCode, answer.body).toBe(200);
    }
    token = (await app.server.inject({ method: 'GET', url: '/iot/devices/crc.json?sn=C0FE&key=1A2B3C4D' })).body;
  });
  afterAll(() => app.close());

  const history = async (server = app.server, query = 'amount=20') => {
    const response = await server.inject({ method: 'GET', url: `/iot/devices/msgs/history.json?${query}`, headers: { 'x-snsr-device-key': token } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    return response.body;
  };
  const stored = () =>
    app.context.storage.db
      .selectFrom('messages')
      .innerJoin('devices', 'devices.id', 'messages.device_id')
      .selectAll('messages')
      .select('devices.serial as device_serial')
      .orderBy('messages.when_ms', 'desc')
      .execute();

  it('stores each message as the presenters build it from its columns', async () => {
    const rows = await stored();
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((row) => row.device_serial))).toEqual(new Set(['C0FE', 'C0FE/2']));
    for (const row of rows) {
      expect(row.body).toBe(messageBody(row, row.device_serial));
      expect(JSON.parse(row.body!)).toEqual(presentMessage(row, row.device_serial));
    }
  });

  it('sends callbacks (and MQTT) the contract body built around the stored text, byte for byte as from the columns', async () => {
    for (const row of await stored()) {
      const contract = JSON.stringify({
        msg: { extra: { entry_id: row.entry_id, frame_type: row.frame_type, code: row.code }, custom: JSON.parse(row.custom) },
        message: presentMessage(row, row.device_serial),
        module: row.module_serial,
        device: row.device_serial,
        app: 7,
      });
      expect(callbackBody(row, row.device_serial, 7)).toBe(contract);
      expect(callbackBody({ ...row, body: null }, row.device_serial, 7)).toBe(contract);
    }
  });

  it('answers history with the stored bodies, byte for byte what it builds without them', async () => {
    const rows = await stored();
    const withBodies = await history();
    expect(withBodies).toBe(`[${rows.map((row) => row.body).join(',')}]`);
    const paged = await history(app.server, `amount=2&until=${rows[1]!.when_ms}`);
    const recents = await app.server.inject({ method: 'GET', url: `/iot/devices/msgs/recents.json?after=${rows[3]!.when_ms}`, headers: { 'x-snsr-device-key': token } });
    const child = await history(app.server, 'sn=C0FE/2');

    // Half the rows as if stored before the column existed, then all of them.
    const older = rows.filter((_, i) => i % 2 === 1).map((row) => row.id);
    await app.context.storage.db.updateTable('messages').set({ body: null }).where('id', 'in', older).execute();
    expect(await history()).toBe(withBodies);
    await app.context.storage.db.updateTable('messages').set({ body: null }).execute();
    expect(await history()).toBe(withBodies);
    expect(await history(app.server, `amount=2&until=${rows[1]!.when_ms}`)).toBe(paged);
    const rebuilt = await app.server.inject({ method: 'GET', url: `/iot/devices/msgs/recents.json?after=${rows[3]!.when_ms}`, headers: { 'x-snsr-device-key': token } });
    expect(rebuilt.body).toBe(recents.body);
    expect(await history(app.server, 'sn=C0FE/2')).toBe(child);
    expect((JSON.parse(child) as { device: string }[]).map((m) => m.device)).toEqual(['C0FE/2', 'C0FE/2', 'C0FE/2']);
  });

  it('shows the device dates written at reception, whatever time zone the server reads them in', async () => {
    // Each message's device was last seen when the message was received: in Paris time, as configured then.
    const page = JSON.parse(await history()) as { when: number; ctxt: { lastseen?: string } }[];
    expect(page.map((m) => m.ctxt.lastseen)).toEqual(page.map((m) => legacyDate(new Date(m.when), 'Europe/Paris')));
    const before = await history();
    const config = loadConfig({ ...NO_SHEDDING, SNSR_SECRET: 'test-secret', SNSR_TIMEZONE: 'America/New_York', SNSR_DATABASE_URL: app.context.config.databaseUrl });
    const context = await createContext(config, { log: pino({ level: 'silent' }) });
    const server = await buildServer(context);
    try {
      expect(await history(server)).toBe(before);
    } finally {
      await server.close();
      await context.close();
    }
  });
});
