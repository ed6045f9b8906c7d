import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { withContext } from '../run-with-context.js';

export function exportCommand(): Command {
  return new Command('export')
    .description("a module's decoded messages (and its children's) as CSV or NDJSON, oldest first, streamed")
    .requiredOption('--module <serial>', 'the module, by serial')
    .addOption(new Option('--format <format>', 'csv: a column per measurement, unit in the header; ndjson: a JSON object per line').choices(['csv', 'ndjson']).default('csv'))
    .option('--from <time>', 'first instant included: ISO 8601 date (2026-11-01, 2026-11-01T08:00:00Z) or epoch ms/s')
    .option('--to <time>', 'instant excluded, as --from')
    .option('--output <file>', 'write to this file instead of standard output')
    .addHelpText('after', '\nExample:\n  snsr export --module C0FE --from 2026-11-01 --to 2026-12-01 --output c0fe-november.csv')
    .action(async (options: { module: string; format: 'csv' | 'ndjson'; from?: string; to?: string; output?: string }) => {
      await withContext(async (context) => {
        const file = await context.exports.forOperator(options.module, { from: options.from, to: options.to }, options.format);
        const target = options.output === undefined ? process.stdout : createWriteStream(options.output);
        await pipeline(Readable.from(file.chunks), target, { end: options.output !== undefined });
        if (options.output !== undefined) console.error(`wrote ${options.output}`);
      });
    });
}
