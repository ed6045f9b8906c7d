import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { EXIT } from '../exit-code.js';
import { withContext } from '../run-with-context.js';
import { positiveInteger } from './deliveries.js';

export function exportCommand(): Command {
  const command = new Command('export');
  return command
    .description("a module's (or an app's modules') decoded messages, or with --raw the raw uplinks and station reports, as CSV or NDJSON, oldest first, streamed")
    .option('--module <serial>', 'the module, by serial (with its children)')
    .option('--app <id>', 'every module attached to this app, one after the other in serial order', positiveInteger)
    .addOption(new Option('--format <format>', 'csv: a column per measurement, unit in the header; ndjson: a JSON object per line').choices(['csv', 'ndjson']).default('csv'))
    .option('--raw', 'the raw uplinks with every station that heard them (time is the network time) instead of the decoded messages')
    .option('--from <time>', 'first instant included: ISO 8601 date (2026-11-01, 2026-11-01T08:00:00Z) or epoch ms/s')
    .option('--to <time>', 'instant excluded, as --from')
    .option('--output <file>', 'write to this file instead of standard output')
    .addHelpText(
      'after',
      '\nExamples:\n  snsr export --module C0FE --from 2026-11-01 --to 2026-12-01 --output c0fe-november.csv\n  snsr export --raw --module C0FE --format ndjson --from 2026-11-01 --output c0fe-raw.ndjson\n  snsr export --app 3 --format ndjson --output app-3.ndjson',
    )
    .action(async (options: { module?: string; app?: number; format: 'csv' | 'ndjson'; raw?: boolean; from?: string; to?: string; output?: string }) => {
      if ((options.module === undefined) === (options.app === undefined)) command.error('error: name what to export with --module SERIAL or --app ID (one of them)', { exitCode: EXIT.usage });
      await withContext(async (context) => {
        const range = { from: options.from, to: options.to };
        const file = await (async () => {
          if (options.app !== undefined) {
            const owner = await context.retention.appOwner(options.app);
            return options.raw ? context.exports.rawForApp(owner, options.app, range, options.format) : context.exports.forApp(owner, options.app, range, options.format);
          }
          const module = options.module!;
          return options.raw ? context.exports.rawForOperator(module, range, options.format) : context.exports.forOperator(module, range, options.format);
        })();
        const target = options.output === undefined ? process.stdout : createWriteStream(options.output);
        await pipeline(Readable.from(file.chunks), target, { end: options.output !== undefined });
        if (options.output !== undefined) console.error(`wrote ${options.output}`);
      });
    });
}
