import type { IngestModule, IngestStore } from '../ingest-store.js';
import type { Uplink, UplinkOutcome } from '../uplink.js';

/** What tells this uplink from the module's others (copies and replays of it share it), as text. */
export function uplinkIdentity(uplink: Uplink): string {
  return uplink.seqNumber !== undefined ? `${uplink.seqNumber} ${uplink.time}` : `${uplink.time} ${uplink.data.toUpperCase()}`;
}

/**
 * Step 2: one raw message per uplink. An uplink is (module, sequence number, network time): copies
 * heard by other base stations and replayed callbacks carry the same pair, while the same number
 * with another time is a new uplink (the 12-bit counter wrapped, or the module was reset). Without
 * a sequence number, the time and the frame identify it. A stored row is never changed to make room.
 * Another station's copy adds an rinfo and may raise the raw message's best SNR; a replay changes nothing.
 */
export async function storeRaw(store: IngestStore, module: IngestModule, uplink: Uplink, now: number): Promise<{ rawId: number; outcome: UplinkOutcome }> {
  const seqNumber = uplink.seqNumber ?? null;
  const data = uplink.data.toUpperCase();
  const raw = {
    module_serial: module.serial,
    seq_number: seqNumber,
    time_s: uplink.time,
    data,
    snr: uplink.snr ?? null,
    avg_snr: uplink.avgSnr ?? null,
    lat: uplink.lat ?? null,
    lng: uplink.lng ?? null,
    received_at: now,
  };
  const station = uplink.station ? { tap: uplink.station.toUpperCase(), rssi: uplink.rssi ?? null, snr: uplink.snr ?? null } : undefined;
  // A new raw message is stored with this station's reception.
  const inserted = await store.insertRaw(raw, station);
  if (inserted !== undefined) return { rawId: inserted, outcome: 'new' };
  // The module row is locked, so the conflicting row cannot have gone since.
  const existing = await store.findRaw(module.serial, seqNumber, uplink.time, data);
  if (!existing) throw new Error(`raw message of ${module.serial} neither inserted nor found`);
  const rawId = existing.id;
  let outcome: UplinkOutcome = 'replay';
  if (station && (await store.addRinfo(rawId, station.tap, station.rssi, station.snr))) outcome = 'duplicate';
  // The raw message keeps the best SNR of every station.
  if (uplink.snr !== undefined && (existing.snr === null || uplink.snr > existing.snr)) await store.setRawSnr(rawId, uplink.snr);
  return { rawId, outcome };
}
