import type { Kysely } from 'kysely';
import type { Database, DeviceUpdate } from './schema.js';

/** A device as a new registration finds it: the column defaults of the devices table. */
const FRESH_DEVICE = {
  uid: null,
  category: null,
  active: 1,
  watched: 0,
  alerts: 0,
  alerts_ack: 0,
  losts: 0,
  msgs: 0,
  firstseen: null,
  lastseen: null,
  battery: 'UNKNOWN',
  level: 'UNKNOWN',
  network: 'UNKNOWN',
  tamper: 'UNKNOWN',
  temp: 'UNKNOWN',
  status: 'UNDEFINED',
  type: 'OTHER',
  bidirval: null,
  period_s: null,
  name: null,
  notes: null,
  tags: '',
  lost_contact: 0,
} as const satisfies DeviceUpdate;

/**
 * Erases everything a registration of each module gathered — messages (and by cascade their pending
 * deliveries), raw messages (and their rinfos), alerts, child devices — and gives each module's own
 * device its default state and flags, bidir value, name, notes and tags included. Runs in the
 * transaction that changed the module rows, after that change: the rows' locks (taken first, as
 * ingest takes them) keep the modules' uplinks out until the new registration is committed.
 *
 * A module's own device keeps its id (what `modules.json` lists), so an uplink waiting on the lock
 * still finds its row afterwards.
 */
export async function resetRegistration(trx: Kysely<Database>, serials: string[]): Promise<void> {
  if (serials.length === 0) return;
  await trx.deleteFrom('alerts').where('module_serial', 'in', serials).execute();
  await trx.deleteFrom('module_retention').where('module_serial', 'in', serials).execute();
  await trx.deleteFrom('messages').where('module_serial', 'in', serials).execute();
  await trx.deleteFrom('raw_messages').where('module_serial', 'in', serials).execute();
  await trx.deleteFrom('devices').where('module_serial', 'in', serials).where('idx', '>', 0).execute();
  await trx.updateTable('devices').set(FRESH_DEVICE).where('module_serial', 'in', serials).where('idx', '=', 0).execute();
}
