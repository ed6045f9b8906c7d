import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { withContext } from '../run-with-context.js';

export function exportCommand(): Command {
  return new Command('export')
    .description("a module's decoded messages (and its children's), or with --raw its raw uplinks and station reports, as CSV or NDJSON, oldest first, streamed")
    .requiredOption('--module <serial>', 'the module, by serial')
    .addOption(new Option('--format <format>', 'csv: a column per measurement, unit in the header; ndjson: a JSON object per line').choices(['csv', 'ndjson']).default('csv'))
    .option('--raw', 'the raw uplinks with every station that heard them (time is the network time) instead of the decoded messages')
    .option('--from <time>', 'first instant included: ISO 8601 date (2026-11-01, 2026-11-01T08:00:00Z) or epoch ms/s')
    .option('--to <time>', 'instant excluded, as --from')
    .option('--output <file>', 'write to this file instead of standard output')
    .addHelpText('after', '\nExample:\n  snsr export --module C0FE --from 2026-11-01 --to 2026-12-01 --output c0fe-november.csv\n  snsr export --raw --module C0FE --format ndjson --from 2026-11-01 --output c0fe-raw.ndjson')
    .action(async (options: { module: string; format: 'csv' | 'ndjson'; raw?: boolean; from?: string; to?: string; output?: string }) => {
      await withContext(async (context) => {
        const range = { from: options.from, to: options.to };
        const file = options.raw
          ? await context.exports.rawForOperator(options.module, range, options.format)
          : await context.exports.forOperator(options.module, range, options.format);
        const target = options.output === undefined ? process.stdout : createWriteStream(options.output);
        await pipeline(Readable.from(file.chunks), target, { end: options.output !== undefined });
        if (options.output !== undefined) console.error(`wrote ${options.output}`);
      });
    });
}
