import type { ExportRepository, RawExportRow } from '../storage/export-repository.js';
import { EXPORT_PAGE } from './message-export.js';
import type { ExportFormat } from './message-export.js';

/** One row per uplink; every station that heard it in the last column, `station:rssi:snr` joined by `;`. */
export const RAW_CSV_HEADER = ['time', 'serial', 'seq', 'data', 'stations (station:rssi dBm:snr dB;…)'];

/** What to export: modules' uplinks (one module after the other) whose network time is in [from, to) (epoch ms), in a format. */
export interface RawExportRequest {
  moduleSerials: string[];
  from: number;
  to: number;
  format: ExportFormat;
}

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

const number = (value: number | null): string => (value === null ? '' : String(value));

function csvLine(serial: string, row: RawExportRow): string {
  const stations = row.stations.map((s) => `${s.tap}:${number(s.rssi)}:${number(s.snr)}`).join(';');
  const fields = [new Date(Number(row.time_s) * 1000).toISOString(), serial, number(row.seq_number), row.data, stations];
  return `${fields.map(csvField).join(',')}\r\n`;
}

function ndjsonLine(serial: string, row: RawExportRow): string {
  const stations = row.stations.map((s) => ({ station: s.tap, rssi: s.rssi, snr: s.snr }));
  return `${JSON.stringify({ time: new Date(Number(row.time_s) * 1000).toISOString(), serial, seq: row.seq_number, data: row.data, stations })}\n`;
}

/**
 * Modules' raw uplinks with their station reports as text chunks, a keyset page at a time, read
 * only as the consumer pulls: memory holds one page whatever the range. The range is on the
 * network's time, which counts whole seconds: a bound inside a second takes the next whole one.
 */
export async function* exportRawMessages(repository: ExportRepository, request: RawExportRequest): AsyncGenerator<string> {
  if (request.format === 'csv') yield `${RAW_CSV_HEADER.map(csvField).join(',')}\r\n`;
  const line = request.format === 'csv' ? csvLine : ndjsonLine;
  const fromS = Math.ceil(request.from / 1000);
  const toS = Math.ceil(request.to / 1000);
  for (const moduleSerial of request.moduleSerials) {
    let after: { timeS: number; id: number } | undefined;
    for (;;) {
      const rows = await repository.rawMessages({ moduleSerial, fromS, toS, after, limit: EXPORT_PAGE });
      if (rows.length > 0) yield rows.map((row) => line(moduleSerial, row)).join('');
      if (rows.length < EXPORT_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = { timeS: Number(last.time_s), id: Number(last.id) };
    }
  }
}
