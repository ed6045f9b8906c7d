import type { RawMessage } from './api/types';

// Signal as the network reported it, from the raw uplinks: the wire writes a missing number as "0",
// and no Sigfox station hears anything at 0 dBm, so "0" reads as "not reported", never as 0 dBm.

export interface Signal {
  /** epoch ms (the network's time of the uplink) */
  when: number;
  /** best RSSI over the stations that heard it, dBm; null when none reported one */
  rssi: number | null;
  /** best SNR, dB; null when not reported */
  snr: number | null;
  stations: number;
  seq: number | undefined;
}

const reported = (text: string): number | null => {
  const value = Number(text);
  return text === '' || text === '0' || !Number.isFinite(value) ? null : value;
};

export function signalOf(raw: RawMessage): Signal {
  const rssis = raw.rinfos.map((r) => reported(r.rssi)).filter((v): v is number => v !== null);
  const snrs = [reported(raw.snr), ...raw.rinfos.map((r) => reported(r.snr))].filter((v): v is number => v !== null);
  return {
    when: raw.time * 1000,
    rssi: rssis.length ? Math.max(...rssis) : null,
    snr: snrs.length ? Math.max(...snrs) : null,
    stations: raw.rinfos.length,
    seq: raw.seqNumber,
  };
}

/** Sigfox sequence numbers are 12 bits: they wrap from 4095 to 0. */
const SEQ = 4096;

/**
 * Where uplinks were lost: between two consecutive uplinks whose sequence numbers are not
 * consecutive. Each span is [after, before] in epoch ms; `missing` counts the lost uplinks.
 */
export function lostSpans(signals: Signal[]): { after: number; before: number; missing: number }[] {
  const sorted = [...signals].sort((a, b) => a.when - b.when);
  const spans: { after: number; before: number; missing: number }[] = [];
  for (let k = 1; k < sorted.length; k++) {
    const [a, b] = [sorted[k - 1]!, sorted[k]!];
    if (a.seq === undefined || b.seq === undefined) continue;
    const step = (b.seq - a.seq + SEQ) % SEQ;
    if (step > 1) spans.push({ after: a.when, before: b.when, missing: step - 1 });
  }
  return spans;
}

/**
 * Series with a null point between two points that have a loss between them, so the line breaks
 * there instead of drawing across what was never received.
 */
export function withGaps<T extends { when: number }>(points: T[], broken: (a: T, b: T) => boolean, blank: (when: number) => T): T[] {
  const out: T[] = [];
  for (const [k, point] of points.entries()) {
    const previous = points[k - 1];
    if (previous && broken(previous, point)) out.push(blank(Math.round((previous.when + point.when) / 2)));
    out.push(point);
  }
  return out;
}

export const dbm = (value: number | null) => (value === null ? '—' : `${value} dBm`);
export const db = (value: number | null) => (value === null ? '—' : `${value} dB`);
