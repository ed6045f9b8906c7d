// The text `snsr decode --explain` prints: a verdict line, one aligned row per field, the decode answer.
import type { ExplainResult } from './explain.js';
import { present } from './present.js';

/** Fields longer than 16 bits are shown in hex, to keep rows readable. */
function showRaw(raw: string): string {
  if (raw.length <= 16) return raw;
  const bits = raw.padStart(Math.ceil(raw.length / 4) * 4, '0');
  let hex = '';
  for (let i = 0; i < bits.length; i += 4) hex += parseInt(bits.slice(i, i + 4), 2).toString(16).toUpperCase();
  return `0x${hex}`;
}

export function formatExplain(result: ExplainResult): string {
  const r = result.result;
  const verdict = r.ok ? `valid: ${r.frame.header.type} frame, code ${r.frame.code}` : `invalid: ${r.reason}`;
  const rows = [['bits', 'raw', 'field', 'meaning'], ...result.fields.map((f) => [f.bits, showRaw(f.raw), f.name, f.meaning])];
  const widths = [0, 1, 2].map((col) => Math.max(...rows.map((row) => row[col].length)));
  const lines = rows.map((row) => `  ${row.map((cell, col) => (col < 3 ? cell.padEnd(widths[col]) : cell)).join('  ')}`.trimEnd());
  return [
    `${result.protocol} ${result.frame || '(empty)'}: ${verdict}`,
    ...(result.fields.length > 0 ? lines : []),
    `decode: ${JSON.stringify(present(r))}`,
  ].join('\n');
}
