import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

export const FLEET_KINDS = ['Boiler', 'Fridge', 'Door', 'Pump', 'Meter'] as const;
export const FLEET_TAGS = [['building-a'], ['building-b', 'cold'], ['building-a', 'cold'], []] as const;

/** The n-th module of a seeded fleet: its serial and what `seedFleet` gave it. */
export function fleetModule(i: number, now: number) {
  const serial = `F${i.toString(16).toUpperCase().padStart(7, '0')}`;
  return {
    serial,
    name: i % 10 === 0 ? null : `${FLEET_KINDS[i % 5]} ${i}`,
    tags: [...FLEET_TAGS[i % 4]!],
    lastseen: i % 7 === 0 ? null : now - i * 60_000,
    battery: i % 11 === 0 ? 'OFF' : i % 3 === 0 ? 'UNKNOWN' : 'ON',
    alert: i % 13 === 0,
    children: i % 17 === 0 ? 2 : 0,
  };
}

/**
 * Registers `count` modules F0000001… to the account, straight into the tables (10,000 in a few
 * seconds): varied last-seen times (every seventh never seen), batteries (every eleventh low),
 * names (every tenth unnamed), tags, an open alert on every thirteenth, two children on every
 * seventeenth. Pass the same `now` to `fleetModule` to know what each one got.
 */
export async function seedFleet(db: Kysely<Database>, accountId: number, count: number, now: number): Promise<void> {
  const BATCH = 250;
  for (let start = 1; start <= count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start + 1) }, (_, k) => ({ i: start + k, ...fleetModule(start + k, now) }));
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('modules')
        .values(batch.map((m) => ({ serial: m.serial, key: '1A2B3C4D', pac: '0123456789ABCDEF', protocol: 'UDM23', account_id: accountId, registered_at: now, imported_at: now })))
        .execute();
      const devices = batch.flatMap((m) => [
        { module_serial: m.serial, idx: 0, serial: m.serial, name: m.name, tags: m.tags.length ? ` ${m.tags.join(' ')} ` : '', lastseen: m.lastseen, firstseen: m.lastseen, battery: m.battery, msgs: m.lastseen === null ? 0 : 10 },
        ...Array.from({ length: m.children }, (_, c) => ({ module_serial: m.serial, idx: c + 1, serial: `${m.serial}/${c + 1}`, name: `Probe ${m.i}.${c + 1}`, tags: ' probe ', lastseen: m.lastseen, firstseen: m.lastseen, battery: 'ON', msgs: 1 })),
      ]);
      const ids = await trx.insertInto('devices').values(devices).returning(['id', 'serial']).execute();
      const alerting = batch.filter((m) => m.alert);
      if (alerting.length > 0) {
        const idOf = new Map(ids.map((d) => [d.serial, d.id]));
        await trx
          .insertInto('alerts')
          .values(alerting.map((m) => ({ account_id: accountId, module_serial: m.serial, device_id: idOf.get(m.serial)!, kind: 'battery', message: 'battery low', raised_at: now })))
          .execute();
      }
    });
  }
}
