import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { Simulation } from '../../src/simulator/simulation.js';
import { catalogCsv, parseModules } from '../../src/simulator/fleet.js';
import { simulateCommand } from '../../src/cli/commands/simulate.js';

const MODULES = 'C0FE,BEEF:UDM22,0ACE,F00D,BABE:UDM22';

describe.each(dialects)('the simulator against a running snsr (%s)', (dialect) => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await startApp(dialect);
    // The catalog says UDM23 for every module: the UDM22 ones correct it with their REGISTER frame.
    await app.context.catalog.import(catalogCsv(parseModules(MODULES).map((m) => ({ ...m, protocol: 'UDM23' }))));
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('leaves exactly the messages, losses and raw uplinks it sent, device by device', async () => {
    const simulation = new Simulation({ url, token: 'network-token', modules: parseModules(MODULES), rate: 2000, uplinks: 600, seed: 11, concurrency: 16 });
    const summary = await simulation.run();
    expect(summary.uplinks).toBe(600);
    expect(summary.callbacks.rejected + summary.callbacks.failed).toBe(0);
    expect(summary.callbacks.accepted).toBe(summary.callbacks.sent);
    expect(summary.callbacks.sent).toBeGreaterThan(700);
    // every copy answered: new or duplicate, or (asking for a downlink) in Sigfox's form
    expect(summary.outcomes.new + summary.outcomes.duplicate + summary.outcomes.acks).toBe(summary.callbacks.sent);
    expect(summary.outcomes.new).toBeLessThanOrEqual(600);
    expect(summary.outcomes.new).toBeGreaterThan(600 - summary.outcomes.acks - 1);
    expect(summary.outcomes.replay).toBe(0);
    expect(summary.lost).toBeGreaterThan(0);
    expect(summary.repetitions).toBeGreaterThan(0);
    expect(summary.latencyMs.p50).toBeGreaterThan(0);
    expect(summary.latencyMs.p99).toBeGreaterThanOrEqual(summary.latencyMs.p50);

    const db = app.context.storage.db;
    const raw = await db.selectFrom('raw_messages').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(Number(raw.n)).toBe(600);
    for (const [serial, expected] of simulation.expectations()) {
      const devices = await db.selectFrom('devices').selectAll().where('module_serial', '=', serial).execute();
      const messages = await db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('module_serial', '=', serial).executeTakeFirstOrThrow();
      expect(Number(messages.n), serial).toBe(expected.messages);
      expect(devices.reduce((sum, d) => sum + d.msgs, 0), serial).toBe(expected.messages);
      expect(devices.find((d) => d.idx === 0)?.losts, serial).toBe(expected.losts);
    }
    // gateways' children registered with their Sigfox ids; UDM22 modules switched their protocol
    const children = await db.selectFrom('devices').select(['serial', 'uid', 'category']).where('idx', '>', 0).orderBy('serial').execute();
    expect(children.map((c) => c.serial)).toEqual(['C0FE/1', 'F00D/1', 'F00D/2']);
    expect(children.every((c) => /^[0-9A-F]{8}$/.test(c.uid ?? '') && c.category === '5')).toBe(true);
    expect((await app.context.repositories.modules.bySerial('BEEF'))?.protocol).toBe('UDM22');
    expect((await app.context.repositories.modules.bySerial('C0FE'))?.protocol).toBe('UDM23');
  });

  it('reports every callback refused, with the reason, when the token is wrong', async () => {
    const simulation = new Simulation({ url, token: 'wrong', modules: parseModules('C0FE'), rate: 1000, uplinks: 5, seed: 1 });
    const summary = await simulation.run();
    expect(summary.callbacks.accepted).toBe(0);
    expect(summary.callbacks.rejected).toBe(summary.callbacks.sent);
    expect(summary.rejections).toEqual([{ status: 401, message: 'the network token is invalid', count: summary.callbacks.sent }]);
  });

  it('runs as snsr simulate, printing a summary', async () => {
    const output: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
    try {
      await simulateCommand().exitOverride().parseAsync(['--url', url, '--token', 'network-token', '--modules', 'F00D', '--rate', '500', '--uplinks', '20', '--quiet', '--json', '--seed', '5'], { from: 'user' });
    } finally {
      write.mockRestore();
    }
    const summary = JSON.parse(output.join(''));
    expect(summary).toMatchObject({ modules: 1, uplinks: 20, callbacks: { rejected: 0, failed: 0 } });
    expect(summary.outcomes.new).toBeGreaterThan(0);
  });
});

describe('snsr simulate, on its own', () => {
  const run = async (args: string[]) => {
    const output: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      output.push(String(chunk));
      return true;
    });
    const errors = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await simulateCommand().exitOverride().parseAsync(args, { from: 'user' });
      return { code: 0, output: output.join('') };
    } catch (error) {
      return { code: (error as { exitCode: number }).exitCode, output: output.join(''), message: (error as Error).message };
    } finally {
      write.mockRestore();
      errors.mockRestore();
    }
  };

  it('prints the catalog of the simulated modules', async () => {
    const { code, output } = await run(['--count', '3', '--print-catalog']);
    expect(code).toBe(0);
    expect(output.split('\n')[0]).toBe('SERIAL;KEY;PAC;PROTOCOL');
    expect(output.split('\n').slice(1, 4).map((line) => line.split(';')[0])).toEqual(['F0000001', 'F0000002', 'F0000003']);
  });

  it.each([
    [['--url', 'http://x'], /--modules or --count/],
    [['--url', 'http://x', '--modules', 'C0FE', '--count', '2'], /not both/],
    [['--modules', 'C0FE', '--token', 't'], /--url is required/],
    [['--url', 'http://x', '--modules', 'NOPE!'], /hex digits/],
    [['--url', 'http://x', '--count', '0'], /from 1 to/],
    [['--url', 'http://x', '--count', '2', '--rate', 'fast'], /number/],
  ])('is a usage error (exit 2) for %j', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.message).toMatch(message);
  });
});
