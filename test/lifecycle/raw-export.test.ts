import { describe, expect, it } from 'vitest';
import type { ExportRepository, RawExportPage, RawExportRow } from '../../src/storage/export-repository.js';
import { EXPORT_PAGE } from '../../src/lifecycle/message-export.js';
import { exportRawMessages } from '../../src/lifecycle/raw-export.js';

/** A module with `total` uplinks, one a second from `startS`, read through the export's keyset pages. */
function fakeRepository(total: number, startS: number) {
  const pages: RawExportPage[] = [];
  const repository = {
    rawMessages: async (page: RawExportPage): Promise<RawExportRow[]> => {
      pages.push(page);
      const first = page.after === undefined ? Math.max(0, page.fromS - startS) : page.after.id + 1;
      const rows: RawExportRow[] = [];
      for (let i = first; i < total && rows.length < page.limit && startS + i < page.toS; i++) {
        rows.push({ id: i, time_s: startS + i, seq_number: i, data: '00', stations: [{ tap: '0A1B', rssi: -120, snr: 10 }] });
      }
      return rows;
    },
  } as unknown as ExportRepository;
  return { repository, pages };
}

describe('exportRawMessages: keyset pages, read as consumed', () => {
  it('reads a page only when the consumer asks for more: a reader that stops early stops the reads', async () => {
    const { repository, pages } = fakeRepository(EXPORT_PAGE * 50, 1_800_000_000);
    const chunks = exportRawMessages(repository, { moduleSerials: ['C0FE'], from: 0, to: Number.MAX_SAFE_INTEGER, format: 'csv' });
    expect((await chunks.next()).value).toMatch(/^time,serial,seq,data,stations/);
    expect(pages).toHaveLength(0);
    const first = (await chunks.next()).value as string;
    expect(first.split('\r\n').filter(Boolean)).toHaveLength(EXPORT_PAGE);
    await chunks.next();
    expect(pages).toHaveLength(2);
    expect(pages[1]!.after).toEqual({ timeS: 1_800_000_000 + EXPORT_PAGE - 1, id: EXPORT_PAGE - 1 });
    await chunks.return(undefined);
    expect(pages).toHaveLength(2);
  });

  it('takes the range in ms onto network seconds: from included, to excluded, a bound inside a second rounding up', async () => {
    const { repository, pages } = fakeRepository(10, 1_800_000_000);
    let text = '';
    for await (const chunk of exportRawMessages(repository, { moduleSerials: ['C0FE'], from: 1_800_000_002_000, to: 1_800_000_005_500, format: 'ndjson' })) text += chunk;
    expect(pages[0]).toMatchObject({ fromS: 1_800_000_002, toS: 1_800_000_006 });
    expect(text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual([2, 3, 4, 5]);
  });
});
