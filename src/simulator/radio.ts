import type { Random } from './random.js';

/** One base station's copy of an uplink, in Sigfox's callback variables. */
export interface Reception {
  station: string;
  rssi: number;
  snr: number;
  lat: number;
  lng: number;
}

interface Station {
  id: string;
  /** This module's typical RSSI at this station, dBm. */
  rssi: number;
  lat: number;
  lng: number;
}

const cents = (value: number) => Math.round(value * 100) / 100;

/**
 * The base stations around one module. Each uplink is heard by one to three of them (half the time
 * one), each with an RSSI near its own typical level and an SNR that follows the RSSI — the spread a
 * real deployment shows.
 */
export class Radio {
  private readonly stations: Station[];

  constructor(private readonly random: Random) {
    const lat = Math.round(random.between(43, 50));
    const lng = Math.round(random.between(-1, 7));
    this.stations = Array.from({ length: 3 }, () => ({ id: random.hex(4), rssi: random.between(-135, -95), lat, lng }));
  }

  /** The stations that hear the next uplink, best first; `single` keeps only one (no duplicates). */
  receive(single = false): Reception[] {
    const roll = this.random.next();
    const heard = single || roll < 0.5 ? 1 : roll < 0.85 ? 2 : 3;
    const stations = [...this.stations];
    for (let i = stations.length - 1; i > 0; i--) {
      const j = this.random.int(i + 1);
      [stations[i], stations[j]] = [stations[j], stations[i]];
    }
    return stations
      .slice(0, heard)
      .map((station) => {
        const rssi = Math.max(-142, Math.min(-70, station.rssi + this.random.gauss(3)));
        const snr = Math.max(0.5, Math.min(40, (rssi + 142) * 0.6 + this.random.gauss(2)));
        return { station: station.id, rssi: cents(rssi), snr: cents(snr), lat: station.lat, lng: station.lng };
      })
      .sort((a, b) => b.snr - a.snr);
  }
}
