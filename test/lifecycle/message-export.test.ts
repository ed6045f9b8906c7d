import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../helpers/database.js';
import { importCatalog, startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { seedDevice } from '../helpers/seed.js';
import { ExportRepository } from '../../src/storage/export-repository.js';
import type { ExportPage } from '../../src/storage/export-repository.js';
import { EXPORT_PAGE, exportMessages } from '../../src/lifecycle/message-export.js';

const T0 = Date.UTC(2026, 0, 1);
/** More than two pages, with runs of messages sharing a millisecond across page boundaries. */
const COUNT = EXPORT_PAGE * 2 + 500;

describe.each(dialects)('exportMessages: keyset pages, read as consumed (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
    await importCatalog(app);
    const device = await seedDevice(app, 'C0FE', 0);
    const rows = Array.from({ length: COUNT }, (_, i) => ({
      module_serial: 'C0FE', device_id: device.id, raw_id: null, when_ms: T0 + Math.floor(i / 7) * 1000, time_s: T0 / 1000 + Math.floor(i / 7), type: 'keepalive:voltagetemp', station: '1A2B', lvl: -120,
      frame: '000300189167', frame_type: 'srv_frm_keepalive', code: 'keepalive', entry_id: 0, stamp: 0, cpt: i % 16, retry: 0,
      custom: JSON.stringify({ voltage_mv: 3000 + i }), contrib: '{}', ctxt: '{}',
    }));
    for (let i = 0; i < rows.length; i += 500) await app.context.storage.db.insertInto('messages').values(rows.slice(i, i + 500)).execute();
  });
  afterAll(() => app.close());

  it('returns every message of the range once, oldest first, across pages and ties', async () => {
    const repository = new ExportRepository(app.context.storage.db);
    let text = '';
    for await (const chunk of exportMessages(repository, { scopes: [{ moduleSerial: 'C0FE' }], from: 0, to: Number.MAX_SAFE_INTEGER, format: 'ndjson' })) text += chunk;
    const voltages = text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { voltage_mv: number }).voltage_mv);
    expect(voltages).toEqual(Array.from({ length: COUNT }, (_, i) => 3000 + i));
  });

  it('reads a page only when the consumer asks for more: a reader that stops early stops the reads', async () => {
    const repository = new ExportRepository(app.context.storage.db);
    const pages: ExportPage[] = [];
    const counting = { messages: (page: ExportPage) => (pages.push(page), repository.messages(page)) } as ExportRepository;
    const chunks = exportMessages(counting, { scopes: [{ moduleSerial: 'C0FE' }], from: 0, to: Number.MAX_SAFE_INTEGER, format: 'csv' });
    expect((await chunks.next()).value).toMatch(/^time,serial,type,/);
    expect(pages).toHaveLength(0);
    const first = (await chunks.next()).value as string;
    expect(first.split('\r\n').filter(Boolean)).toHaveLength(EXPORT_PAGE);
    expect(pages).toHaveLength(1);
    await chunks.return(undefined);
    expect(pages).toHaveLength(1);
  });
});
