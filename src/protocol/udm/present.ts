// The decode operation's wire form (section 9.1b). `custom` already has the wire keys, so this only
// wraps the frame; the header counters stay out of the answer.
import type { CustomValues, DecodeResult } from './frame.js';
import { frameTypeString } from './header.js';

export interface PresentedFrame {
  msg: { extra: { entry_id: number; frame_type: string; code: string }; custom: CustomValues };
}

/** `{"msg": {"extra": {...}, "custom": {...}}}` for a valid frame, `{}` for an invalid one. */
export function present(result: DecodeResult): PresentedFrame | Record<string, never> {
  if (!result.ok) return {};
  const { header, code, custom } = result.frame;
  return { msg: { extra: { entry_id: header.entryId, frame_type: frameTypeString(header.type), code }, custom } };
}
