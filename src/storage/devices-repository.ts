import type { Kysely } from 'kysely';
import type { Device, Health, Temperature } from '../domain/types.js';
import type { Database, DeviceRow, DeviceUpdate } from './schema.js';

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

export const toDevice = (row: DeviceRow): Device => ({
  id: row.id,
  moduleSerial: row.module_serial,
  index: row.idx,
  serial: row.serial,
  uid: row.uid,
  category: row.category,
  active: row.active === 1,
  watched: row.watched === 1,
  alerts: row.alerts,
  alertsAck: row.alerts_ack,
  losts: row.losts,
  msgs: row.msgs,
  firstseen: date(row.firstseen),
  lastseen: date(row.lastseen),
  battery: row.battery as Health,
  level: row.level as Health,
  network: row.network as Health,
  tamper: row.tamper as Health,
  temp: row.temp as Temperature,
  status: row.status,
  type: row.type,
  bidirval: row.bidirval,
});

/** Flags a device operation may set, by their column. */
export interface DeviceFlags {
  active?: boolean;
  watched?: boolean;
  status?: string;
  bidirval?: string | null;
}

export class DevicesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async byId(id: number): Promise<Device | undefined> {
    const row = await this.db.selectFrom('devices').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toDevice(row);
  }

  async bySerial(serial: string): Promise<Device | undefined> {
    const row = await this.db.selectFrom('devices').selectAll().where('serial', '=', serial.toUpperCase()).executeTakeFirst();
    return row && toDevice(row);
  }

  /** The module's own device (index 0) followed by its children in index order. */
  async ofModule(moduleSerial: string): Promise<Device[]> {
    const rows = await this.db
      .selectFrom('devices')
      .selectAll()
      .where('module_serial', '=', moduleSerial)
      .orderBy('idx')
      .execute();
    return rows.map(toDevice);
  }

  async setFlags(id: number, flags: DeviceFlags): Promise<void> {
    const changes: DeviceUpdate = {};
    if (flags.active !== undefined) changes.active = flags.active ? 1 : 0;
    if (flags.watched !== undefined) changes.watched = flags.watched ? 1 : 0;
    if (flags.status !== undefined) changes.status = flags.status;
    if (flags.bidirval !== undefined) changes.bidirval = flags.bidirval;
    if (Object.keys(changes).length === 0) return;
    await this.db.updateTable('devices').set(changes).where('id', '=', id).execute();
  }
}
