// `snsr decode`: decodes UDM frames offline, printing exactly what the HTTP decode operation answers.
// Pure: needs no database or configuration, so it imports only the protocol library and commander.
import { Command, InvalidArgumentError, Option } from 'commander';
import { decode, explain, formatExplain, normalizeFrameText, parseProtocol, present, type Protocol } from '../../protocol/udm/index.js';

function protocolOption(value: string): Protocol {
  const protocol = parseProtocol(value);
  if (protocol) return protocol;
  const error = new InvalidArgumentError('Use UDM22 or UDM23.');
  error.exitCode = 2; // a usage error, like any other bad command line
  throw error;
}

export function decodeCommand(): Command {
  return new Command('decode')
    .description('decode UDM frames (hex) as GET /iot/developers/decode does: one JSON line per frame, {} when invalid')
    .argument('<hex...>', 'frames as hex, any case, 2..12 bytes each, an optional 0x prefix; quote a frame with spaces')
    .addOption(
      new Option('-p, --protocol <protocol>', 'payload dialect, UDM22 or UDM23 (any case)')
        .default('UDM23' satisfies Protocol)
        .argParser(protocolOption),
    )
    .option('-e, --explain', 'print a field-by-field breakdown (bits, raw value, meaning) instead of JSON')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ snsr decode 00000046',
        '  {"msg":{"extra":{"entry_id":0,"frame_type":"srv_frm_event","code":"event_battery_low"},"custom":{"voltage_mv":2550}}}',
        '  $ snsr decode --protocol udm22 000000 00039E1518',
        '  $ snsr decode --explain 00010100202AC5B3FC801118',
      ].join('\n'),
    )
    .action((frames: string[], options: { protocol: Protocol; explain?: boolean }) => {
      for (const frame of frames.map(normalizeFrameText)) {
        const text = options.explain
          ? `${formatExplain(explain(frame, options.protocol))}\n`
          : JSON.stringify(present(decode(frame, options.protocol)));
        process.stdout.write(`${text}\n`);
      }
    });
}
