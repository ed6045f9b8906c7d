// Which frames raise an alert on a watched device and which end one. The UDM protocol's alarms are
// its event pairs (section 3.1 of the frame spec): the first of each pair starts the condition, the
// second ends it. The lost-contact watchdog adds one kind of its own.
import type { Frame } from '../protocol/udm/index.js';
import type { AlertKind } from '../domain/alerts.js';

/** What a frame does to alerts: raises one of a kind, or ends the open ones of some kinds. */
export type AlarmEffect = { raise: AlertKind; text: string } | { end: readonly AlertKind[]; text: string };

const TEMPERATURE: readonly AlertKind[] = ['temperature_low', 'temperature_high'];

/** Event code → effect; the text is completed with the event's measurement when it has one. */
const EVENT_ALARMS: Readonly<Record<string, AlarmEffect>> = {
  event_battery_low: { raise: 'battery_low', text: 'battery low' },
  event_battery_ok: { end: ['battery_low'], text: 'battery OK' },
  event_temp_low: { raise: 'temperature_low', text: 'temperature below its low threshold' },
  event_temp_high: { raise: 'temperature_high', text: 'temperature above its high threshold' },
  event_temp_ok: { end: TEMPERATURE, text: 'temperature back in range' },
  event_connection_lost: { raise: 'connection_lost', text: 'the gateway lost its connection to this device' },
  event_connection_ok: { end: ['connection_lost'], text: 'the gateway hears this device again' },
  event_rssi_low: { raise: 'signal_low', text: 'radio signal between gateway and device low' },
  event_rssi_ok: { end: ['signal_low'], text: 'radio signal between gateway and device OK' },
  event_switch_on: { raise: 'tamper', text: 'tamper switch on' },
  event_switch_off: { end: ['tamper'], text: 'tamper switch off' },
};

function measured(frame: Frame): string {
  const { voltage_mv: mv, temperature_c: c } = frame.custom;
  if (typeof mv === 'number') return ` (${(mv / 1000).toFixed(2)} V)`;
  if (typeof c === 'number') return ` (${c} °C)`;
  return '';
}

/** The alarm effect of a decoded frame, if any. */
export function alarmEffect(frame: Frame): AlarmEffect | undefined {
  const rule = EVENT_ALARMS[frame.code];
  return rule && { ...rule, text: rule.text + measured(frame) };
}

/** The keep-alive interval a frame announces, in seconds: 0 when its sender does not monitor itself. */
export function announcedPeriod(frame: Frame): number | undefined {
  if (frame.header.type !== 'keepalive') return undefined;
  const hours = frame.custom.interval_h;
  return typeof hours === 'number' ? hours * 3600 : undefined;
}
