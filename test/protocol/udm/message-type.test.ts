import { expect, it } from 'vitest';
import { EVENT_CODES, messageType } from '../../../src/protocol/udm/index.js';

it.each([
  ['event_temp_low', 'event:templow'],
  ['event_rssi_ok', 'event:rssiok'],
  ['event_battery_low', 'event:batterylow'],
  ['event_connection_lost', 'event:connectionlost'],
  ['event_accelero_move', 'event:acceleromove'],
  ['event_custom_37', 'event:custom37'],
  ['data_gps', 'data:geoloc'],
  ['data_phone', 'data:phone'],
  ['data_custom', 'data:custom'],
  ['data_pin', 'data:pin'],
  ['service_sms', 'service:sms'],
  ['service_tweet', 'service:tweet'],
  ['keepalive_voltage_temp', 'keepalive:voltagetemp'],
  ['keepalive_voltage_temp_geoloc', 'keepalive:voltagetempgeoloc'],
  ['keepalive_geoloc', 'keepalive:geoloc'],
  ['keepalive_custom', 'keepalive:custom'],
  ['keepalive', 'keepalive:keepalive'],
  ['register', 'register:register'],
  ['ping', 'ping:ping'],
  ['raw', 'raw:raw'],
  ['geoloc', 'geoloc:geoloc'],
])('%s → %s', (code, type) => {
  expect(messageType(code)).toBe(type);
});

it('every event code maps to event:<name without underscores>', () => {
  expect(EVENT_CODES.size).toBe(13 + 37);
  for (const code of EVENT_CODES.keys()) expect(messageType(code)).toMatch(/^event:[a-z0-9]+$/);
});
