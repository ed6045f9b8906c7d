import type { IngestModule, IngestStore } from '../ingest-store.js';
import type { Uplink, UplinkOutcome } from '../uplink.js';

/**
 * Copies of one uplink carry the same sequence number and network time. Sigfox sequence numbers wrap
 * at 4096, which a module cannot reach in less than hours: the same number with a time this far apart
 * is a new uplink.
 */
export const SAME_UPLINK_WINDOW_S = 60;

/**
 * Step 2: one raw message per uplink — per (module, seqNumber), or (module, time) without a sequence
 * number. Another base station hearing the same uplink adds an rinfo and may raise the raw message's
 * best SNR; a replayed callback changes nothing.
 */
export async function storeRaw(store: IngestStore, module: IngestModule, uplink: Uplink, now: number): Promise<{ rawId: number; outcome: UplinkOutcome }> {
  const seqNumber = uplink.seqNumber ?? null;
  const raw = {
    module_serial: module.serial,
    seq_number: seqNumber,
    time_s: uplink.time,
    data: uplink.data.toUpperCase(),
    snr: uplink.snr ?? null,
    avg_snr: uplink.avgSnr ?? null,
    lat: uplink.lat ?? null,
    lng: uplink.lng ?? null,
    received_at: now,
  };
  let rawId = await store.insertRaw(raw);
  let outcome: UplinkOutcome = 'new';
  let bestSnr = raw.snr;
  if (rawId === undefined) {
    const existing = await store.findRaw(module.serial, seqNumber, uplink.time);
    if (!existing) throw new Error(`raw message of ${module.serial} neither inserted nor found`);
    if (seqNumber !== null && Math.abs(existing.time_s - uplink.time) > SAME_UPLINK_WINDOW_S) {
      await store.retireSeqNumber(existing.id);
      rawId = await store.insertRaw(raw);
      if (rawId === undefined) throw new Error(`raw message of ${module.serial} not inserted after its sequence number was retired`);
    } else {
      rawId = existing.id;
      bestSnr = existing.snr;
      outcome = 'replay';
    }
  }
  if (uplink.station) {
    const added = await store.addRinfo(rawId, uplink.station.toUpperCase(), uplink.rssi ?? null, uplink.snr ?? null);
    if (added && outcome === 'replay') outcome = 'duplicate';
  }
  // The raw message keeps the best SNR of every station.
  if (uplink.snr !== undefined && (bestSnr === null || uplink.snr > bestSnr)) await store.setRawSnr(rawId, uplink.snr);
  return { rawId, outcome };
}
