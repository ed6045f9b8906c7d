import type { ExportRepository, ExportRow } from '../storage/export-repository.js';

export type ExportFormat = 'csv' | 'ndjson';

/**
 * The decoded values an export has a column for, with their units. Fixed, so a CSV's header can be
 * written before the first row is read and files of one module stay comparable over time.
 */
export const MEASUREMENTS = [
  { key: 'temperature_c', header: 'temperature (°C)' },
  { key: 'voltage_mv', header: 'voltage (mV)' },
  { key: 'interval_h', header: 'keep-alive interval (h)' },
  { key: 'latitude', header: 'latitude (°)' },
  { key: 'longitude', header: 'longitude (°)' },
  { key: 'altitude_m', header: 'altitude (m)' },
  { key: 'satellites', header: 'satellites' },
] as const;

export const CSV_HEADER = ['time', 'serial', 'type', ...MEASUREMENTS.map((m) => m.header), 'signal (dBm)', 'station', 'frame'];

/** What to export: modules (or one device of one), a time range, a format. */
export interface ExportRequest {
  scopes: { moduleSerial: string; deviceId?: number | undefined }[];
  from: number;
  to: number;
  format: ExportFormat;
}

/** Rows read per query: enough to amortize a round trip, small enough that memory stays flat. */
export const EXPORT_PAGE = 1000;

function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function csvLine(row: ExportRow, custom: Record<string, unknown>): string {
  const values = MEASUREMENTS.map((m) => (typeof custom[m.key] === 'number' ? String(custom[m.key]) : ''));
  const fields = [new Date(row.when_ms).toISOString(), row.device_serial, row.type, ...values, row.lvl === null ? '' : String(row.lvl), row.station, row.frame];
  return `${fields.map(csvField).join(',')}\r\n`;
}

function ndjsonLine(row: ExportRow, custom: Record<string, unknown>): string {
  const measured = Object.fromEntries(MEASUREMENTS.filter((m) => typeof custom[m.key] === 'number').map((m) => [m.key, custom[m.key]]));
  const line = { time: new Date(row.when_ms).toISOString(), when: row.when_ms, serial: row.device_serial, type: row.type, ...measured, signal_dbm: row.lvl, station: row.station, frame: row.frame };
  return `${JSON.stringify(line)}\n`;
}

/**
 * The export as text chunks, one per page of rows, read a keyset page at a time: a consumer that
 * stops pulling (a slow client, through stream back-pressure) stops the reads, and no more than one
 * page is held at once, whatever the range.
 */
export async function* exportMessages(repository: ExportRepository, request: ExportRequest): AsyncGenerator<string> {
  if (request.format === 'csv') yield `${CSV_HEADER.map(csvField).join(',')}\r\n`;
  const line = request.format === 'csv' ? csvLine : ndjsonLine;
  for (const scope of request.scopes) {
    let after: { when: number; id: number } | undefined;
    for (;;) {
      const rows = await repository.messages({ ...scope, from: request.from, to: request.to, after, limit: EXPORT_PAGE });
      if (rows.length > 0) yield rows.map((row) => line(row, JSON.parse(row.custom) as Record<string, unknown>)).join('');
      if (rows.length < EXPORT_PAGE) break;
      const last = rows[rows.length - 1]!;
      after = { when: last.when_ms, id: last.id };
    }
  }
}
