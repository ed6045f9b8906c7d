import type { Kysely } from 'kysely';
import { decode, frameTypeString, messageType, statusUpdate } from '../../src/protocol/udm/index.js';
import type { Protocol } from '../../src/protocol/udm/index.js';
import type { Database } from '../../src/storage/schema.js';
import { deviceContext } from '../../src/ingest/device-context.js';
import { legacyDate } from '../../src/wire/legacy-date.js';
import type { TestApp } from './app.js';

export interface Station {
  tap: string;
  rssi: number;
  snr: number;
}

export interface SeedUplink {
  module: string;
  /** Reception time, epoch ms; like the network's, it counts in whole seconds (the rest is dropped). */
  at: number;
  /** Hex UDM frame; its entry id (or an event's child index) names the device. */
  frame: string;
  seq?: number;
  /** The base stations that heard it, the first one's copy arriving first. */
  stations?: Station[];
  protocol?: Protocol;
}

export interface Seeded {
  rawId: number;
  messageId: number;
  deviceId: number;
  deviceSerial: string;
}

/** The device `<module>/<index>` (or the module's own for index 0), created as ingestion does when first heard of. */
export async function seedDevice(app: TestApp, module: string, index: number, db: Kysely<Database> = app.context.storage.db): Promise<{ id: number; serial: string }> {
  const serial = index === 0 ? module : `${module}/${index}`;
  const existing = await db.selectFrom('devices').select(['id', 'serial']).where('serial', '=', serial).executeTakeFirst();
  if (existing) return existing;
  return db.insertInto('devices').values({ module_serial: module, idx: index, serial }).returning(['id', 'serial']).executeTakeFirstOrThrow();
}

/**
 * One uplink stored the way ingestion stores it: the raw message with one rinfo per base station
 * (and the best SNR of them all), and the decoded message of the device concerned, with the first
 * copy's station and RSSI, the state the frame set (`contrib`), and the device's state after it as
 * `ctxt`.
 */
export async function seedUplink(app: TestApp, uplink: SeedUplink): Promise<Seeded> {
  const result = decode(uplink.frame, uplink.protocol ?? 'UDM23');
  if (!result.ok) throw new Error(`seed frame ${uplink.frame} does not decode: ${result.reason}`);
  const { header, code, custom } = result.frame;
  const stations = uplink.stations ?? [{ tap: '1B2C', rssi: -120.5, snr: 12.3 }];
  const first = stations[0]!;
  const update = statusUpdate(result.frame);
  const timeS = Math.floor(uplink.at / 1000);
  const timeZone = app.context.config.timezone;
  return app.context.storage.db.transaction().execute(async (trx) => {
    const raw = await trx
      .insertInto('raw_messages')
      .values({
        module_serial: uplink.module,
        seq_number: uplink.seq ?? null,
        time_s: timeS,
        data: uplink.frame.toUpperCase(),
        snr: Math.max(...stations.map((s) => s.snr)),
        avg_snr: stations.reduce((sum, s) => sum + s.snr, 0) / stations.length,
        lat: 48.86,
        lng: 2.35,
        received_at: uplink.at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.insertInto('rinfos').values(stations.map((s) => ({ raw_id: raw.id, ...s }))).execute();

    const device = await seedDevice(app, uplink.module, update?.entryId ?? header.entryId, trx);
    const contrib = update ? { [update.field]: update.value } : {};
    await trx
      .updateTable('devices')
      .set((eb) => ({ ...contrib, msgs: eb('msgs', '+', 1), lastseen: timeS * 1000, firstseen: eb.fn.coalesce('firstseen', eb.val(timeS * 1000)) }))
      .where('id', '=', device.id)
      .execute();
    const state = await trx.selectFrom('devices').selectAll().where('id', '=', device.id).executeTakeFirstOrThrow();
    const ctxt = deviceContext(state, (ms) => legacyDate(new Date(ms), timeZone));
    const message = await trx
      .insertInto('messages')
      .values({
        module_serial: uplink.module,
        device_id: device.id,
        raw_id: raw.id,
        when_ms: timeS * 1000,
        time_s: timeS,
        type: messageType(code),
        station: first.tap,
        lvl: first.rssi,
        frame: uplink.frame.toUpperCase(),
        frame_type: frameTypeString(header.type),
        code,
        entry_id: header.entryId,
        stamp: header.stamp,
        cpt: header.cpt,
        retry: header.retry ? 1 : 0,
        custom: JSON.stringify(custom),
        contrib: JSON.stringify(contrib),
        ctxt: JSON.stringify(ctxt),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { rawId: raw.id, messageId: message.id, deviceId: device.id, deviceSerial: device.serial };
  });
}

/** Frames for the seed: a temperature-low event (-5 °C) from the module or, with an entry id, from a child. */
export const tempLow = (cpt = 0, entry = 0): string => Buffer.from([cpt & 0x0f, (entry << 4) | 0, 0x06, 0x32]).toString('hex').toUpperCase();
/** A keep-alive: 24 h interval, 3300 mV, 21.5 °C. */
export const keepAlive = (cpt = 0, entry = 0): string => Buffer.from([cpt & 0x0f, (entry << 4) | 3, 0x00, 0x18, 0x91, 0x67]).toString('hex').toUpperCase();
