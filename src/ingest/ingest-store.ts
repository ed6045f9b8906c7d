import type { Kysely } from 'kysely';
import type { Protocol } from '../protocol/udm/index.js';
import type { Database, DeviceRow, NewMessage } from '../storage/schema.js';
import * as q from './ingest-queries.js';
import type { DeviceChanges, RecentFrame } from './ingest-queries.js';
import * as b from './batched-queries.js';
import * as k from './built-queries.js';
import { moduleState } from './ingest-module.js';
import type { IngestModule, ModuleChanges, NewRaw, Rinfo } from './ingest-module.js';
import { deviceUpdate, insertMessages, updatedDevice } from './batched-messages.js';
import type { DeviceUpdate } from './batched-messages.js';
import { enqueueDeliveriesOf } from '../delivery/outbox.js';
import type { BatchedStatement, Round } from './round.js';

// The steps take these from the store, beside the store itself.
export type { DeviceChanges, RecentFrame } from './ingest-queries.js';
export type { IngestModule, ModuleChanges, NewRaw, Rinfo } from './ingest-module.js';

const enqueueDeliveries: BatchedStatement<{ id: number; module_serial: string }, number> = { run: (trx, messages) => enqueueDeliveriesOf(trx, messages) };

/**
 * The ingest pipeline's queries. Every method runs on the transaction it is given, so one uplink's
 * steps commit or roll back together. The ones every uplink runs are prepared (ingest-queries.ts);
 * the rare ones are built as usual (built-queries.ts). Given a round (PostgreSQL), the hot ones are
 * sent together with those of the round's other uplinks (batched-queries.ts).
 */
export class IngestStore {
  /** Lookups sent ahead (PostgreSQL rounds), by what they look up. */
  private readonly ahead = new Map<string, Promise<unknown>>();
  /** Device updates that go with the message's insert (PostgreSQL rounds). */
  private devices: DeviceUpdate[] = [];

  constructor(
    readonly trx: Kysely<Database>,
    /** `SELECT … FOR UPDATE` is available (it is wherever SKIP LOCKED is): serialize a module's uplinks across processes. */
    private readonly rowLocks: boolean,
    private readonly round?: Round,
  ) {}

  /** The module by serial with its own device, locked for the rest of the transaction. */
  async lockModule(serial: string): Promise<IngestModule | undefined> {
    const [row] = this.round ? [await this.round.add(b.lockModules, serial)] : await (this.rowLocks ? q.lockModule : q.selectModule)(this.trx, serial);
    if (!row) return undefined;
    // The device is the row's other columns, copied by a loop: a rest pattern is four times slower here.
    const device: Record<string, unknown> = {};
    for (const column in row) if (!column.startsWith('m_')) device[column] = row[column as keyof typeof row];
    return {
      serial,
      protocol: row.m_protocol as Protocol,
      lastCpt: row.m_last_cpt,
      lastSeq: row.m_last_seq,
      lastTimeS: row.m_last_time_s,
      lastWhenMs: row.m_last_when_ms,
      device: device as DeviceRow,
      callbacks: Boolean(row.m_callbacks),
      accountId: row.m_account_id,
    };
  }

  /**
   * Inserts the raw message unless this uplink is already stored; its id, or undefined. A new raw
   * message gets its first station's reception (`rinfo`) with it.
   */
  async insertRaw(raw: NewRaw, rinfo?: Rinfo): Promise<number | undefined> {
    const values: q.RawValues = [raw.module_serial, raw.seq_number, raw.time_s, raw.data, raw.snr, raw.avg_snr, raw.lat, raw.lng, raw.received_at];
    if (this.round) {
      const station = [rinfo?.tap ?? null, rinfo?.rssi ?? null, rinfo?.snr ?? null] as const;
      return this.round.add(raw.seq_number !== null ? b.insertRawBySeq : b.insertRawNoSeq, [...values, ...station]);
    }
    const [row] = await (raw.seq_number !== null ? q.insertRawBySeq : q.insertRawNoSeq)(this.trx, ...values);
    if (row && rinfo) await q.insertRinfo(this.trx, row.id, rinfo.tap, rinfo.rssi, rinfo.snr);
    return row?.id;
  }

  /** The stored raw message of this uplink: same sequence number and time, or same time and frame without one. */
  async findRaw(serial: string, seqNumber: number | null, timeS: number, data: string): Promise<{ id: number; snr: number | null } | undefined> {
    if (this.round && seqNumber !== null) return this.round.add(b.findRawBySeq, [serial, seqNumber, timeS]);
    const [row] = await (seqNumber !== null ? q.findRawBySeq(this.trx, serial, seqNumber, timeS) : q.findRawNoSeq(this.trx, serial, timeS, data));
    return row;
  }

  /** Adds a base station's reception; true when this station had not reported the uplink before. */
  async addRinfo(rawId: number, tap: string, rssi: number | null, snr: number | null): Promise<boolean> {
    const inserted = this.round ? await this.round.add(b.insertRinfos, [rawId, tap, rssi, snr]) : (await q.insertRinfo(this.trx, rawId, tap, rssi, snr)).length > 0;
    if (inserted) return true;
    // The same station again: keep its best reception, so a replay changes nothing.
    if (snr !== null) await k.keepBestReception(this.trx, rawId, tap, rssi, snr);
    return false;
  }

  async setRawSnr(rawId: number, snr: number): Promise<void> {
    if (this.round) await this.round.add(b.setRawSnr, [rawId, snr]);
    else await q.setRawSnr(this.trx, rawId, snr);
  }

  /** Writes what an uplink changed of the module, in one statement (two when the protocol switches). */
  async updateModule(serial: string, changes: ModuleChanges): Promise<void> {
    if (changes.losts) await this.addLosts(changes.losts.deviceId, changes.losts.delta);
    if (changes.protocol) await k.switchProtocol(this.trx, serial, changes.protocol);
    const state = moduleState(serial, changes);
    if (!state) return;
    if (this.round) await this.round.add(b.updateModuleStates, state);
    else await q.updateModuleState(this.trx, ...state);
  }

  /** Adds `delta` (negative: a late uplink found) to a device's lost-uplink count, never below zero. */
  async addLosts(deviceId: number, delta: number): Promise<void> {
    await k.addLosts(this.trx, deviceId, delta);
  }

  /**
   * In a round, sends the lookups of `recentFrames` (when `recent` is given) and of `childDevice`
   * (when `child` is) with the call the job makes next, in the same round trip; those methods then
   * answer from them. Elsewhere it does nothing. Only what the job may not need anyway is looked up.
   */
  lookAhead(serial: string, { recent, child }: { recent?: number; child?: number }): void {
    const round = this.round;
    if (!round) return;
    const send = <T>(key: string, lookup: () => Promise<T>) => {
      const pending = lookup();
      // Read later, or never when the uplink turns out to be another station's copy.
      pending.catch(() => {});
      this.ahead.set(key, pending);
    };
    if (recent !== undefined) send(`recent ${recent}`, () => round.add(b.recentFrames, [serial, recent], true));
    if (child !== undefined) send(`child ${child}`, () => round.add(b.childDevices, [serial, child], true));
  }

  private sentAhead<T>(key: string): Promise<T> | undefined {
    const pending = this.ahead.get(key);
    this.ahead.delete(key);
    return pending as Promise<T> | undefined;
  }

  /** The module's newest messages, newest first (keyset scan on the history index). */
  async recentFrames(serial: string, limit: number): Promise<RecentFrame[]> {
    const ahead = this.sentAhead<RecentFrame[]>(`recent ${limit}`);
    if (ahead) return ahead;
    if (this.round) return this.round.add(b.recentFrames, [serial, limit]);
    return k.recentFrames(this.trx, serial, limit);
  }

  /** Device `<serial>/<index>` of the module, created on first mention. */
  async childDevice(moduleSerial: string, index: number): Promise<DeviceRow> {
    const ahead = this.sentAhead<DeviceRow | undefined>(`child ${index}`);
    const [existing] = ahead ? [await ahead] : this.round ? [await this.round.add(b.childDevices, [moduleSerial, index])] : await q.childDevice(this.trx, moduleSerial, index);
    if (existing) return existing;
    // In a round, the round's new children go in one statement (and the job waits on the round with the others).
    const made = this.round
      ? await this.round.add(b.createChildDevices, [moduleSerial, index])
      : await k.insertChildDevice(this.trx, moduleSerial, index);
    if (made) return made;
    // The insert did nothing: the device exists after all.
    const [created] = await q.childDevice(this.trx, moduleSerial, index);
    if (!created) throw new Error(`device ${moduleSerial}/${index} could not be created`);
    return created;
  }

  /**
   * Applies the changes to each device (distinct ones, as this transaction read them) and returns
   * them as they are afterwards. In a round (PostgreSQL) the update is written with the message
   * (`insertMessage`, which must follow), one statement for both.
   */
  async updateDevices(updates: readonly (readonly [DeviceRow, DeviceChanges])[]): Promise<DeviceRow[]> {
    if (this.round) {
      this.devices.push(...updates.map(([row, changes]) => deviceUpdate(row.id, changes)));
      return updates.map(([row, changes]) => updatedDevice(row, changes));
    }
    const rows = await updates.reduce<Promise<(DeviceRow | undefined)[]>>(async (done, [row, changes]) => [...(await done), await k.updateDeviceAlone(this.trx, row.id, changes)], Promise.resolve([]));
    return rows.map((row, i) => {
      if (!row) throw new Error(`device ${updates[i][0].id} not found`);
      return row;
    });
  }

  /**
   * Inserts the message and writes what its uplink changed of the module (and, in a round, of its
   * devices: `updateDevices`), one statement on PostgreSQL; its id.
   */
  async insertMessage(message: NewMessage, changes: ModuleChanges & { lastWhenMs: number }): Promise<number> {
    if (changes.protocol) await k.switchProtocol(this.trx, message.module_serial, changes.protocol);
    const state = moduleState(message.module_serial, changes)!;
    if (this.round) return this.round.add(insertMessages, { message, state, devices: this.devices.splice(0) });
    const [row] = await q.insertMessage(this.trx, message);
    if (!row) throw new Error('message not inserted');
    await q.updateModuleState(this.trx, ...state);
    return row.id;
  }

  /**
   * In a round (PostgreSQL), sends `arg` with the round's other calls of the batched statement;
   * elsewhere runs `alone`. For the rarer steps whose statements live beside their own room.
   */
  inRound<A, R>(statement: BatchedStatement<A, R>, arg: A, alone: () => Promise<R>): Promise<R> {
    return this.round ? this.round.add(statement, arg) : alone();
  }

  /** The message's pending deliveries, one per attached app with a callback (the outbox). */
  async enqueueDeliveries(message: { id: number; module_serial: string }): Promise<number> {
    return this.round ? this.round.add(enqueueDeliveries, message) : (await enqueueDeliveriesOf(this.trx, [message]))[0];
  }
}
