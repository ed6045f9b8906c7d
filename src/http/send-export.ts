import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ExportFile } from '../lifecycle/export-service.js';

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;

/** The query of every export route: the time range, each bound optional. */
export const ExportQuerySchema = {
  from: Type.Optional(Type.String({ description: 'first instant included: ISO 8601 date (2026-11-01, 2026-11-01T08:00:00Z) or epoch ms/s; default: the beginning' })),
  to: Type.Optional(Type.String({ description: 'instant excluded, as from; default: no end. Must not be before from' })),
};

export const ExportBody = (format: string) =>
  Type.String({
    description:
      format === 'csv'
        ? 'CSV, oldest first: time (ISO 8601), serial, type, one column per decoded measurement with its unit, signal (dBm), station, frame'
        : 'one JSON object per line, oldest first: time, when (epoch ms), serial, type, the decoded measurements (key names carry the unit), signal_dbm, station, frame',
  });

export const RawExportBody = (format: string) =>
  Type.String({
    description:
      format === 'csv'
        ? 'CSV, oldest first, one row per uplink: time (network, ISO 8601), serial, seq, data, stations (every station that heard it as station:rssi:snr, joined by ;)'
        : 'one JSON object per line, oldest first: time (network), serial, seq, data, stations (an array of {station, rssi, snr})',
  });

/**
 * Streams an export: Node back-pressure paces the database reads to what the client takes, so a
 * range of any size is sent with one page of rows in memory.
 */
export function sendExport(reply: FastifyReply, file: ExportFile): FastifyReply {
  return reply
    .type(file.contentType)
    .header('content-disposition', `attachment; filename="${file.filename}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(file.chunks));
}
