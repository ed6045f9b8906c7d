// The `snsr decode` command (src/cli/commands/decode.ts), run in-process through commander.
import { CommanderError } from 'commander';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { decodeCommand } from '../../../src/cli/commands/decode.js';

let out: string;
beforeEach(() => {
  out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

async function run(...args: string[]): Promise<string> {
  await decodeCommand().exitOverride().parseAsync(args, { from: 'user' });
  return out;
}

it('prints the HTTP decode answer, one JSON line per frame, UDM23 by default', async () => {
  expect(await run('00000046', '0z')).toBe(
    '{"msg":{"extra":{"entry_id":0,"frame_type":"srv_frm_event","code":"event_battery_low"},"custom":{"voltage_mv":2550}}}\n{}\n',
  );
});

it('takes the protocol in any case', async () => {
  const lines = (await run('--protocol', 'udm22', '000000', '1300011C')).trimEnd().split('\n');
  expect(lines.map((line) => JSON.parse(line))).toStrictEqual([
    { msg: { extra: { entry_id: 0, frame_type: 'srv_frm_event', code: 'event_battery_low' }, custom: {} } },
    { msg: { extra: { entry_id: 0, frame_type: 'srv_frm_event', code: 'event_battery_ok' }, custom: { level: 28 } } },
  ]);
});

it('--explain prints the field-by-field breakdown', async () => {
  const text = await run('-p', 'UDM22', '--explain', '000020');
  expect(text).toContain('UDM22 000020: invalid: event code 0x20 is not defined in UDM22 (9.2 rule 7)');
  expect(text).toContain('b2.7-0  00100000  event code  0x20 = undefined in UDM22');
});

it('an unknown protocol is a usage error naming the option, exit code 2', async () => {
  let err = '';
  const command = decodeCommand().exitOverride().configureOutput({ writeErr: (s) => void (err += s) });
  const failure = command.parseAsync(['--protocol', 'UDM24', '00000046'], { from: 'user' });
  await expect(failure).rejects.toBeInstanceOf(CommanderError);
  await expect(failure).rejects.toMatchObject({ exitCode: 2 });
  expect(err).toContain("option '-p, --protocol <protocol>' argument 'UDM24' is invalid");
  expect(out).toBe('');
});

it('--help shows an example', () => {
  let help = '';
  const command = decodeCommand().exitOverride().configureOutput({ writeOut: (s) => void (help += s) });
  expect(() => command.parse(['--help'], { from: 'user' })).toThrow(CommanderError);
  expect(help).toContain('decode UDM frames');
  expect(help).toContain('$ snsr decode --protocol udm22 000000 00039E1518');
});

it('takes frames as people paste them: 0x prefix, spaces between bytes, lower case', async () => {
  const plain = await run('00000046');
  out = '';
  expect(await run('0x00000046', '00 00 00 46', '0X0000 0046')).toBe(plain.repeat(3));
});
