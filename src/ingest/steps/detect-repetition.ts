import { frameTypeString } from '../../protocol/udm/index.js';
import type { Frame } from '../../protocol/udm/index.js';
import type { IngestModule, IngestStore, RecentFrame } from '../ingest-store.js';

/** How far back a repetition's original is looked for: a stamp is 3 bits per frame type, so 8 frames of one type wrap it. */
export const RECENT_MESSAGES = 16;

/** Same entry, type, stamp and payload: everything but the first byte (retry bit and counter). */
export function repeats(frame: Frame, hex: string, previous: RecentFrame): boolean {
  return (
    previous.entry_id === frame.header.entryId &&
    previous.frame_type === frameTypeString(frame.header.type) &&
    previous.stamp === frame.header.stamp &&
    previous.frame.slice(2) === hex.slice(2).toUpperCase()
  );
}

/**
 * Step 5: a frame with its retry bit set that repeats one of the module's recent messages is the same
 * message sent again: it stays in the raw history but is not a second message. A repetition whose
 * original never arrived is the first copy heard, so it becomes the message.
 */
export async function detectRepetition(store: IngestStore, module: IngestModule, frame: Frame, hex: string): Promise<boolean> {
  if (!frame.header.retry) return false;
  const recent = await store.recentFrames(module.serial, RECENT_MESSAGES);
  return recent.some((previous) => repeats(frame, hex, previous));
}
