import type { Alert } from '../domain/alerts.js';

/**
 * One Sigfox callback, as the HTTP layer hands it to the pipeline: Sigfox's variable names, already
 * validated (hex, integers), nothing normalized yet.
 */
export interface Uplink {
  /** Sigfox device id (hex) = the module serial, any case. */
  device: string;
  /** Network reception time, epoch seconds. */
  time: number;
  /** The frame, hex, 0..12 bytes. */
  data: string;
  seqNumber?: number;
  /** Base station that heard this copy. */
  station?: string;
  rssi?: number;
  snr?: number;
  avgSnr?: number;
  lat?: number;
  lng?: number;
  duplicate?: boolean;
  /** The module waits for a downlink (bidirectional uplink). */
  ack?: boolean;
  /**
   * Made by the portal's simulator, not heard by the network: its message says so in `extra`
   * (`simulated: true`), and it moves no network counter (lost uplinks, metrics).
   */
  simulated?: boolean;
}

/**
 * What became of an uplink:
 * - `new`: first copy of this uplink, stored and decoded;
 * - `duplicate`: the same uplink heard by another base station, added to its raw message;
 * - `replay`: a callback already received, which changed nothing.
 */
export type UplinkOutcome = 'new' | 'duplicate' | 'replay';

/** What a new uplink's frame became: a message, a repetition of a recent one, or nothing (invalid). */
export type FrameOutcome = 'message' | 'repetition' | 'invalid';

export interface IngestResult {
  uplink: UplinkOutcome;
  rawId: number;
  module: string;
  frame?: FrameOutcome;
  /** Why the frame is invalid (`frame: 'invalid'`). */
  reason?: string;
  /** Serial of the device the message concerns (`frame: 'message'`). */
  device?: string;
  /** Message type, `event:templow` … (`frame: 'message'`). */
  type?: string;
  messageId?: number;
  /** Alerts the message raised or ended on watched devices (`frame: 'message'`). */
  alerts?: { raised: Alert[]; ended: Alert[] };
  /** The module's bidir value, read when the uplink asks for an acknowledgement. */
  downlink?: string | null;
}
