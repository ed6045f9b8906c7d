import type { ColumnInfo, Dialect } from './copy-table-order.js';

export type ColumnKind = 'integer' | 'real' | 'boolean' | 'json' | 'blob' | 'text';

/** What a declared column type holds, by the rules both databases use to read their own types. */
export function columnKind(type: string): ColumnKind {
  const t = type.toLowerCase();
  if (/bool/.test(t)) return 'boolean';
  if (/int/.test(t)) return 'integer';
  if (/real|double|float|numeric|decimal/.test(t)) return 'real';
  if (/json/.test(t)) return 'json';
  if (/blob|bytea/.test(t)) return 'blob';
  return 'text';
}

type Encode = (value: unknown) => unknown;

function toNumber(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  // pg hands out BIGINT and NUMERIC as strings when no type parser is set; SQLite may hold numbers as text.
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}

function toText(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return value;
}

/**
 * The value converter for a column: from whatever the source driver returned to what the target's
 * column takes. snsr's schema keeps booleans as 0/1 integers, times and ids as BIGINT and JSON as
 * text in both databases, so most values pass unchanged; the rules below cover what the drivers
 * represent differently (pg's bigint strings, a BLOB as Buffer, PostgreSQL booleans and JSON).
 */
export function encoder(target: ColumnInfo, targetDialect: Dialect): Encode {
  const kind = columnKind(target.type);
  const encode = (value: unknown): unknown => {
    switch (kind) {
      case 'integer':
      case 'real':
        return toNumber(value);
      case 'boolean':
        if (targetDialect === 'postgres') return typeof value === 'boolean' ? value : Number(toNumber(value)) !== 0;
        return toNumber(value);
      case 'json':
        // pg would send a JS array as a PostgreSQL array: JSON goes over the wire as its text.
        return typeof value === 'string' ? value : JSON.stringify(value);
      case 'blob':
        return typeof value === 'string' ? Buffer.from(value) : value;
      case 'text':
        return toText(value);
    }
  };
  return (value) => (value === null || value === undefined ? null : encode(value));
}

/** A row's values in the target's representation, in the order of `columns`. */
export function rowEncoder(columns: ColumnInfo[], targetDialect: Dialect): (row: Record<string, unknown>) => unknown[] {
  const encoders = columns.map((column) => [column.name, encoder(column, targetDialect)] as const);
  return (row) => encoders.map(([name, encode]) => encode(row[name]));
}
