import type { Frame, Protocol } from '../../protocol/udm/index.js';
import type { IngestModule, IngestStore, ModuleChanges } from '../ingest-store.js';
import type { Uplink } from '../uplink.js';

/** Sigfox sequence numbers count 0..4095 and wrap. */
export const SEQ_MODULO = 4096;
/**
 * A sequence number below the last one is a wrap when it crossed 4095 after fewer skipped uplinks
 * than this; otherwise the module was reset (its counter restarts near 0), which loses nothing.
 */
export const MAX_WRAP_GAP = 256;

/** Uplinks lost between two counters of the module's 4-bit emission counter (0 when unknown). */
export function lostBetween(lastCpt: number | null, cpt: number): number {
  return lastCpt === null ? 0 : (cpt - lastCpt - 1 + 16) % 16;
}

/** Uplinks lost between two Sigfox sequence numbers: 0 across a wrap from 4095 to 0 and after a reset. */
export function lostBetweenSeq(lastSeq: number | null, seq: number): number {
  if (lastSeq === null) return 0;
  if (seq > lastSeq) return seq - lastSeq - 1;
  const acrossWrap = (seq - lastSeq - 1 + SEQ_MODULO) % SEQ_MODULO;
  return acrossWrap < MAX_WRAP_GAP ? acrossWrap : 0;
}

/**
 * An uplink older than the module's newest, by network time (and, within one second, by sequence
 * number): the network delivered it late. It was counted lost when the gap was seen.
 */
export function isLate(module: IngestModule, uplink: Uplink): boolean {
  if (module.lastTimeS === null) return false;
  if (uplink.time !== module.lastTimeS) return uplink.time < module.lastTimeS;
  return uplink.seqNumber !== undefined && module.lastSeq !== null && uplink.seqNumber < module.lastSeq;
}

/**
 * Step 4: the module's counters, for every new uplink (repetitions and invalid frames are emissions
 * too). A gap is counted lost on the module's own device: by the Sigfox sequence number, or by the
 * frame's 4-bit counter when the network gave none. A late uplink is found again (one lost less)
 * and does not move the counters back. A REGISTER may switch the protocol.
 *
 * Returns the module's changes instead of writing them: the pipeline writes the module row once, at
 * its end, with the message's `when`, and the lost count with the module device's state (one
 * statement fewer per uplink each).
 */
export async function updateModule(_store: IngestStore, module: IngestModule, uplink: Uplink, frame: Frame | undefined, switchTo?: Protocol): Promise<ModuleChanges> {
  // A simulated uplink is no emission of the module: it neither counts a gap nor moves the counters.
  if (uplink.simulated) return switchTo ? { protocol: switchTo } : {};
  const cpt = frame?.header.cpt ?? null;
  const seq = uplink.seqNumber ?? null;
  const late = isLate(module, uplink);
  const lost = late ? -1 : seq !== null ? lostBetweenSeq(module.lastSeq, seq) : cpt !== null ? lostBetween(module.lastCpt, cpt) : 0;
  return {
    ...(!late && { newest: { cpt, seq, timeS: uplink.time } }),
    ...(switchTo && { protocol: switchTo }),
    ...(lost !== 0 && { losts: { deviceId: module.device.id, delta: lost } }),
  };
}
