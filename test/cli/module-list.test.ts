import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/storage.js';
import { snsr } from '../helpers/cli.js';
import { fleetModule, seedFleet } from '../helpers/fleet.js';

const dir = mkdtempSync(join(tmpdir(), 'snsr-cli-modules-'));
const env = { SNSR_DATABASE_URL: join(dir, 'snsr.sqlite') };
const EMAIL = 'fleet@example.com';
const now = Date.now();
const fleet = Array.from({ length: 40 }, (_, k) => fleetModule(k + 1, now));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('snsr modules list, label, tag (the real binary)', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    expect((await snsr(['accounts', 'create', '--email', EMAIL, '--password', 'Secret123'], env)).code).toBe(0);
    const storage = await openStorage(env.SNSR_DATABASE_URL);
    try {
      const { id } = await storage.db.selectFrom('accounts').select('id').where('email', '=', EMAIL).executeTakeFirstOrThrow();
      await seedFleet(storage.db, id, fleet.length, now);
    } finally {
      await storage.close();
    }
  }, 60_000);

  it('lists, searches and sorts as a table or as the API’s JSON', async () => {
    const listed = await snsr(['modules', 'list', '--email', EMAIL, '--search', 'cold', '--sort', 'serial', '--order', 'asc', '--limit', '3'], env);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SERIAL\s+NAME\s+TAGS\s+LAST SEEN\s+ALERTS\s+BATTERY\s+CHILDREN$/);
    const cold = fleet.filter((m) => m.tags.includes('cold'));
    expect(lines.slice(1, 4).map((line) => line.split(/\s{2,}/)[0])).toEqual(cold.slice(0, 3).map((m) => m.serial));
    expect(lines.at(-1)).toBe(`1–3 of ${cold.length}`);
    const json = JSON.parse((await snsr(['modules', 'list', '--email', EMAIL, '--state', 'low-battery', '--json'], env)).stdout);
    expect(json.total).toBe(fleet.filter((m) => m.battery === 'OFF').length);
    expect(json.modules[0]).toMatchObject({ battery: 'OFF', tags: expect.any(Array) });
  });

  it('labels a module and a child, and tags every module matching a filter with a count', async () => {
    const labelled = await snsr(['modules', 'label', '--email', EMAIL, 'f0000001', '--name', 'Cellar pump', '--tags', 'cellar,wet'], env);
    expect(labelled.code).toBe(0);
    expect(JSON.parse(labelled.stdout)).toEqual({ serial: 'F0000001', index: 0, name: 'Cellar pump', tags: ['cellar', 'wet'], notes: null });
    expect(JSON.parse((await snsr(['modules', 'label', '--email', EMAIL, 'F0000011/1', '--notes', 'north wall'], env)).stdout)).toMatchObject({ serial: 'F0000011/1', notes: 'north wall' });
    const tagged = await snsr(['modules', 'tag', '--email', EMAIL, '--state', 'alerting', '--add', 'check'], env);
    expect(tagged.stdout.trim()).toBe(`${fleet.filter((m) => m.alert).length} of ${fleet.filter((m) => m.alert).length} modules changed`);
    const listed = JSON.parse((await snsr(['modules', 'list', '--email', EMAIL, '--tag', 'check', '--json'], env)).stdout);
    expect(listed.modules.map((m: { serial: string }) => m.serial).sort()).toEqual(fleet.filter((m) => m.alert).map((m) => m.serial));
    expect((await snsr(['modules', 'tag', '--email', EMAIL, '--remove', 'check', 'F000000D'], env)).stdout.trim()).toBe('1 of 1 modules changed');
  });

  it('exits 2 on a wrong command line and 1 with a message on refused work', async () => {
    expect((await snsr(['modules', 'list', '--email', EMAIL, '--state', 'asleep'], env)).code).toBe(2);
    expect((await snsr(['modules', 'list', '--email', EMAIL, '--limit', 'ten'], env)).code).toBe(2);
    expect((await snsr(['modules', 'tag', '--email', EMAIL, 'F0000001'], env)).code).toBe(2);
    const badTag = await snsr(['modules', 'label', '--email', EMAIL, 'F0000001', '--tags', 'two words!'], env);
    expect(badTag.code).toBe(1);
    expect(badTag.stderr).toMatch(/snsr: tag "words!" must be/);
    const unknown = await snsr(['modules', 'label', '--email', EMAIL, 'FFFFFFFF', '--name', 'x'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/module FFFFFFFF not found/);
    const nobody = await snsr(['modules', 'list', '--email', 'nobody@example.com'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/no developer account/);
  });
});
