import type { Protocol } from '../protocol/udm/index.js';
import type { DeviceRow, RawMessageRow } from '../storage/schema.js';
import type * as b from './batched-queries.js';

// What the ingest store reads of a module and writes back for an uplink, apart from the store (ingest-store.ts).

/** The module an uplink belongs to, with what the pipeline needs to know about it. */
export interface IngestModule {
  serial: string;
  protocol: Protocol;
  /** Counters and network time (epoch s) of the newest uplink by network time, which tell a late one. */
  lastCpt: number | null;
  lastSeq: number | null;
  lastTimeS: number | null;
  /** The last `when` (epoch ms) given to one of the module's messages. */
  lastWhenMs: number | null;
  /** The module's own device (index 0). */
  device: DeviceRow;
  /**
   * An app with a callback URL is attached, as the lock found it: without one a message has no
   * delivery to queue, and the outbox is not asked (one statement fewer per uplink).
   */
  callbacks: boolean;
  /** The account the module is registered to, as the lock found it (null: none). */
  accountId: number | null;
}

/** What an uplink changes of its module. */
export interface ModuleChanges {
  /** the uplink is the module's newest by network time: its counters (either may be unknown) and time */
  newest?: { cpt: number | null; seq: number | null; timeS: number };
  /** the uplink switched the module's protocol (a REGISTER) */
  protocol?: Protocol;
  /** the `when` given to the uplink's message */
  lastWhenMs?: number;
  /**
   * uplinks found lost (negative: a late one found) on the module's own device: written by
   * `updateModule`, or with that device's state (`updateDevices`) when the uplink is a message
   */
  losts?: { deviceId: number; delta: number };
}

/** A raw message as the pipeline first stores it: every column but the generated id. */
export type NewRaw = Omit<RawMessageRow, 'id'>;

/** A base station's reception of an uplink. */
export interface Rinfo {
  tap: string;
  rssi: number | null;
  snr: number | null;
}

/** The module state columns an uplink writes, or undefined when it writes none. */
export function moduleState(serial: string, { newest, lastWhenMs }: ModuleChanges): b.ModuleState | undefined {
  if (!newest && lastWhenMs === undefined) return undefined;
  return [serial, newest?.cpt ?? null, newest?.seq ?? null, newest?.timeS ?? null, lastWhenMs ?? null];
}
