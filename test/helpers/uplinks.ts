import type { TestApp } from './app.js';

/** A UDM frame as hex from its bytes. */
export const hex = (...bytes: number[]): string => Buffer.from(bytes).toString('hex').toUpperCase();

/** UDM23 event frames: header (counter, entry) then the event code and its data byte. */
export const frames = {
  batteryLow: (cpt: number, entry = 0) => hex(cpt & 0x0f, entry << 4, 0x00, 0x64),
  batteryOk: (cpt: number, entry = 0) => hex(cpt & 0x0f, entry << 4, 0x01, 0x91),
  tempHigh: (cpt: number, entry = 0) => hex(cpt & 0x0f, entry << 4, 0x07, 0xa0),
  tempOk: (cpt: number, entry = 0) => hex(cpt & 0x0f, entry << 4, 0x08, 0x67),
  keepAlive: (cpt: number, entry = 0, hours = 1) => hex(cpt & 0x0f, (entry << 4) | 3, 0x00, hours, 0x91, 0x67),
};

let seq = 0;

/** Posts one uplink as the Sigfox network does, through the real route; each call a new sequence number. */
export async function uplink(app: TestApp, device: string, data: string, timeS: number): Promise<void> {
  const answer = await app.server.inject({
    method: 'POST',
    url: '/network/sigfox/uplink',
    headers: { authorization: 'Bearer network-token' },
    payload: { device, time: timeS, data, seqNumber: ++seq % 4096, station: '1A2B', rssi: -120, snr: 10 },
  });
  if (answer.statusCode !== 200) throw new Error(`uplink answered ${answer.statusCode}: ${answer.body}`);
}
