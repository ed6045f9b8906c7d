import type { UplinkOutcome } from './metrics.js';

/** The parts of an ingest result metrics read (the full type lives with the pipeline). */
interface Result {
  uplink: 'new' | 'duplicate' | 'replay';
  frame?: 'message' | 'repetition' | 'invalid';
}

/** How `snsr_uplinks_total` names what became of an uplink; a refused one is `rejected`. */
export function uplinkOutcome(outcome: { result: Result } | { error: unknown }): UplinkOutcome {
  if (!('result' in outcome)) return 'rejected';
  const { uplink, frame } = outcome.result;
  if (uplink !== 'new') return uplink;
  return frame === 'message' || frame === undefined ? 'new' : frame;
}
