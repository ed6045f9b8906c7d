// Message `type` strings of history and recents (end of section 9.1b): `<category>:<detail>`.

/**
 * The code's category prefix, a colon, and the rest without underscores: 'event_temp_low' →
 * 'event:templow', 'keepalive_voltage_temp' → 'keepalive:voltagetemp'. Codes without a sub-type repeat
 * the type ('register:register'); GPS data keeps the name older dashboards read, 'data:geoloc'.
 */
export function messageType(code: string): string {
  if (code === 'data_gps') return 'data:geoloc';
  const cut = code.indexOf('_');
  return cut < 0 ? `${code}:${code}` : `${code.slice(0, cut)}:${code.slice(cut + 1).replaceAll('_', '')}`;
}
