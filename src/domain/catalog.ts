import { PROTOCOLS } from '../protocol/udm/index.js';
import type { Protocol } from '../protocol/udm/index.js';
import type { CatalogEntry, ModulesRepository } from '../storage/modules-repository.js';
import type { CatalogModule } from './types.js';
import { badRequest } from './errors.js';

export const SERIAL = /^[0-9A-F]{1,8}$/;
const KEY = /^[0-9A-F]{8}$/;
const PAC = /^[0-9A-F]{16}$/;

/**
 * Parses the catalog CSV `SERIAL;KEY;PAC[;PROTOCOL]` (header line first). Every problem is collected
 * with its line number, and any problem rejects the whole file before anything is written.
 */
export function parseCatalog(text: string): CatalogEntry[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = (lines[0] ?? '').split(';').map((cell) => cell.trim().toUpperCase());
  if (header.slice(0, 3).join(';') !== 'SERIAL;KEY;PAC' || (header.length === 4 && header[3] !== 'PROTOCOL') || header.length > 4) {
    throw badRequest('line 1: the header must be SERIAL;KEY;PAC or SERIAL;KEY;PAC;PROTOCOL');
  }
  const problems: string[] = [];
  const entries: CatalogEntry[] = [];
  const seen = new Map<string, number>();
  lines.slice(1).forEach((line, i) => {
    const number = i + 2;
    if (line.trim() === '') return;
    const cells = line.split(';').map((cell) => cell.trim().toUpperCase());
    const [serial = '', key = '', pac = '', protocol] = cells;
    const fail = (why: string) => problems.push(`line ${number}: ${why}`);
    if (cells.length < 3 || cells.length > 4) return fail(`expected 3 or 4 fields separated by ";", found ${cells.length}`);
    if (!SERIAL.test(serial)) return fail(`serial "${serial}" must be 1 to 8 hex digits`);
    if (!KEY.test(key)) return fail(`key "${key}" must be 8 hex digits`);
    if (!PAC.test(pac)) return fail(`PAC "${pac}" must be 16 hex digits`);
    if (protocol !== undefined && protocol !== '' && !PROTOCOLS.includes(protocol as Protocol)) {
      return fail(`protocol "${protocol}" must be UDM22 or UDM23`);
    }
    const previous = seen.get(serial);
    if (previous !== undefined) return fail(`serial ${serial} already appears on line ${previous}`);
    seen.set(serial, number);
    entries.push({ serial, key, pac, ...(protocol ? { protocol: protocol as Protocol } : {}) });
  });
  if (problems.length > 0) throw badRequest(problems.join('\n'));
  return entries;
}

export class CatalogService {
  constructor(private readonly modules: ModulesRepository) {}

  /**
   * Validates the whole file, then writes it in serial order, in chunks that commit one by one —
   * the order ingestion locks modules in, so an import beside live traffic neither deadlocks nor
   * stalls it. Not atomic: a failure part-way leaves the chunks already written; running the same
   * import again finishes it.
   */
  async import(text: string, onProgress?: (done: number, total: number) => void): Promise<{ created: number; updated: number }> {
    return this.modules.importCatalog(parseCatalog(text), onProgress);
  }

  list(limit: number, after?: string): Promise<CatalogModule[]> {
    return this.modules.listCatalog(limit, after);
  }
}
