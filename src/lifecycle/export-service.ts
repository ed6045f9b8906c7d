import type { AppService } from '../domain/apps.js';
import type { DeviceScope, DeviceSelector, DeviceService } from '../domain/devices.js';
import type { ModuleService } from '../domain/modules.js';
import { badRequest, notFound } from '../domain/errors.js';
import { normalizeSerial } from '../domain/modules.js';
import type { CatalogModule } from '../domain/types.js';
import { parseInstant } from '../domain/time-range.js';
import type { ExportRepository } from '../storage/export-repository.js';
import { exportMessages } from './message-export.js';
import type { ExportFormat } from './message-export.js';
import { exportRawMessages } from './raw-export.js';

/** The range of an export as a caller gives it: epoch ms or s, or an ISO 8601 date; both optional. */
export interface ExportQuery {
  from?: unknown;
  to?: unknown;
}

/** A download: its suggested file name, media type and text, produced as it is read. */
export interface ExportFile {
  filename: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

const CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' };
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `from`/`to` in epoch ms: an ISO date (`2026-11-01`, `2026-11-01T08:00:00Z`) or an epoch number. */
function bound(name: string, raw: unknown): number | undefined {
  if (typeof raw === 'string' && ISO_DATE.test(raw.trim())) {
    const ms = Date.parse(raw.trim());
    if (Number.isNaN(ms)) throw badRequest(`${name} must be an ISO 8601 date or an epoch time, got ${JSON.stringify(raw)}`);
    return ms;
  }
  try {
    return parseInstant(name, raw);
  } catch {
    throw badRequest(`${name} must be an ISO 8601 date (2026-11-01, 2026-11-01T08:00:00Z) or an epoch time in ms or s, got ${JSON.stringify(raw)}`);
  }
}

/** The inclusive start and exclusive end of the range: from the first message, to now and beyond. */
export function exportRange(query: ExportQuery): { from: number; to: number } {
  const from = Math.ceil(bound('from', query.from) ?? 0);
  const to = Math.ceil(bound('to', query.to) ?? Number.MAX_SAFE_INTEGER);
  if (from > to) throw badRequest(`from (${new Date(from).toISOString()}) must not be after to (${new Date(to).toISOString()})`);
  return { from, to };
}

/** Decoded (or raw) messages as CSV or NDJSON, for a device token, a module's owner, an app's owner, the operator. */
export class ExportService {
  constructor(
    private readonly repository: ExportRepository,
    private readonly services: {
      devices: DeviceService;
      modules: ModuleService;
      apps: AppService;
      moduleBySerial: (serial: string) => Promise<CatalogModule | undefined>;
    },
  ) {}

  /** The token's module, or one device of it that the selector names. */
  async forDevice(scope: DeviceScope, selector: DeviceSelector, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const device = await this.services.devices.select(scope, selector);
    const serial = device?.serial ?? scope.module.serial;
    return this.file(`${serial.replaceAll('/', '-')}-messages`, format, { scopes: [{ moduleSerial: scope.module.serial, deviceId: device?.id }], ...range, format });
  }

  /** A module the account owns: it and its children. */
  async forModule(accountId: number, sn: string, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const { module } = await this.services.modules.owned(accountId, sn);
    return this.file(`${module.serial}-messages`, format, { scopes: [{ moduleSerial: module.serial }], ...range, format });
  }

  /** Every module attached to an app of the account, one after the other in serial order. */
  async forApp(accountId: number, appId: number, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const modules = await this.services.apps.modulesOf(accountId, appId);
    const scopes = modules.map((m) => m.serial).sort().map((moduleSerial) => ({ moduleSerial }));
    return this.file(`app-${appId}-messages`, format, { scopes, ...range, format });
  }

  /** Any module of the catalog, for the operator's CLI. */
  async forOperator(sn: string, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const module = await this.services.moduleBySerial(normalizeSerial(sn));
    if (!module) throw notFound(`module ${normalizeSerial(sn)} is not in the catalog`);
    return this.file(`${module.serial}-messages`, format, { scopes: [{ moduleSerial: module.serial }], ...range, format });
  }

  /** The token's module's raw uplinks with their station reports (a `sn` must name the module or one of its devices). */
  async rawForDevice(scope: DeviceScope, selector: DeviceSelector, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    await this.services.devices.select(scope, selector);
    return this.rawFile(`${scope.module.serial}-raw`, [scope.module.serial], format, range);
  }

  /** The raw uplinks of a module the account owns. */
  async rawForModule(accountId: number, sn: string, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const { module } = await this.services.modules.owned(accountId, sn);
    return this.rawFile(`${module.serial}-raw`, [module.serial], format, range);
  }

  /** The raw uplinks of every module attached to an app of the account, one after the other in serial order. */
  async rawForApp(accountId: number, appId: number, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const modules = await this.services.apps.modulesOf(accountId, appId);
    return this.rawFile(`app-${appId}-raw`, modules.map((m) => m.serial).sort(), format, range);
  }

  /** The raw uplinks of any module of the catalog, for the operator's CLI. */
  async rawForOperator(sn: string, query: ExportQuery, format: ExportFormat): Promise<ExportFile> {
    const range = exportRange(query);
    const module = await this.services.moduleBySerial(normalizeSerial(sn));
    if (!module) throw notFound(`module ${normalizeSerial(sn)} is not in the catalog`);
    return this.rawFile(`${module.serial}-raw`, [module.serial], format, range);
  }

  private file(name: string, format: ExportFormat, request: Parameters<typeof exportMessages>[1]): ExportFile {
    return { filename: `${name}.${format}`, contentType: CONTENT_TYPES[format], chunks: exportMessages(this.repository, request) };
  }

  private rawFile(name: string, moduleSerials: string[], format: ExportFormat, range: { from: number; to: number }): ExportFile {
    return { filename: `${name}.${format}`, contentType: CONTENT_TYPES[format], chunks: exportRawMessages(this.repository, { moduleSerials, ...range, format }) };
  }
}
