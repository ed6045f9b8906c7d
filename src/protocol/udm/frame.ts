// The typed model of a UDM frame, shared by every codec. Section numbers refer to spec/udm-frames.md.

/** The two payload dialects. A frame cannot reveal its own version (except REGISTER/PING), so callers say. */
export type Protocol = 'UDM22' | 'UDM23';
export const PROTOCOLS: readonly Protocol[] = Object.freeze(['UDM22', 'UDM23'] as const);

/** `udm23`, ` UDM22 ` … → the protocol; anything else → undefined (for the CLI and HTTP parameter parsing). */
export function parseProtocol(name: string): Protocol | undefined {
  const upper = name.trim().toUpperCase();
  return upper === 'UDM22' || upper === 'UDM23' ? upper : undefined;
}

/** Frame type names in nibble order 0..7 (section 2); `frame_type` on the wire is `srv_frm_` + name. */
export type FrameTypeName = 'event' | 'data' | 'register' | 'keepalive' | 'raw' | 'service' | 'geoloc' | 'ping';

export interface FrameHeader {
  /** b0.7: a scheduled repetition of a frame already sent. */
  retry: boolean;
  /** b0.6-4: per-frame-type sequence number 0..7. */
  stamp: number;
  /** b0.3-0: global transmission counter 0..15 of the emitting module. */
  cpt: number;
  /** b1.7-4: 0 = the module itself, 1..15 = a child behind a gateway. */
  entryId: number;
  /** b1.3-0. */
  type: FrameTypeName;
}

/**
 * Decoded payload values with exactly the snake_case keys of section 9.1b, so presenting a frame is a
 * copy. A key is present only when the payload carries that value.
 */
export interface CustomValues {
  voltage_mv?: number;
  temperature_c?: number;
  interval_h?: number;
  /** UDM22 battery-ok raw byte. */
  level?: number;
  child_index?: number;
  /** Switch GPIO port letter, A..F on EFM32 (nibbles 6..15 read as G..P). */
  port?: string;
  pin?: number;
  reset_cause?: number;
  custom_cause?: number;
  /** "2.2" / "2.3". */
  version?: string;
  software_release?: number;
  device_class?: number;
  /** Upper-case hex, 8 digits. */
  sigfox_id?: string;
  custom_value?: number;
  slot?: number;
  phone?: string;
  pin_code?: string;
  /** Decimal degrees, negative south. */
  latitude?: number;
  /** Decimal degrees, negative west. */
  longitude?: number;
  altitude_m?: number;
  satellites?: number;
  hdop_class?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  /** GPS frames only: false when the module had no position. */
  fix?: boolean;
  text?: string;
  /** Upper-case hex of opaque bytes (raw, geoloc, data_custom, custom events, keep-alive custom bytes). */
  data?: string;
}

export interface Frame {
  header: FrameHeader;
  /** 'event_battery_low', 'data_gps', 'keepalive_voltage_temp', 'register', … (section 9.1b). */
  code: string;
  custom: CustomValues;
}

export type DecodeResult = { ok: true; frame: Frame } | { ok: false; reason: string };
