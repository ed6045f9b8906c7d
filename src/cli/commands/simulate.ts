// `snsr simulate`: feeds realistic UDM uplinks to a running snsr, as the Sigfox network would. It
// talks only HTTP, so it needs no database and can load a server on another machine.
import { Command, InvalidArgumentError } from 'commander';
import { catalogCsv, generatedModules, parseModules } from '../../simulator/fleet.js';
import { Simulation } from '../../simulator/simulation.js';
import { formatSummary, progressPrinter } from '../../simulator/report.js';

function number(min: number, max: number, integer = false) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min || parsed > max || (integer && !Number.isInteger(parsed))) {
      const error = new InvalidArgumentError(`Use ${integer ? 'an integer' : 'a number'} from ${min} to ${max}.`);
      error.exitCode = 2;
      throw error;
    }
    return parsed;
  };
}

interface SimulateOptions {
  url?: string;
  token?: string;
  modules?: string;
  count?: number;
  rate: number;
  duration?: number;
  uplinks?: number;
  concurrency: number;
  seed?: number;
  duplicates: boolean;
  path: string;
  quiet?: boolean;
  json?: boolean;
  printCatalog?: boolean;
}

export function simulateCommand(): Command {
  return new Command('simulate')
    .description('send realistic Sigfox uplinks (keep-alives, events, gateways with children, duplicates, repetitions, losses) to a running snsr')
    .option('--url <url>', 'base URL of snsr, e.g. http://localhost:8080')
    .option('--token <token>', 'network token (default: $SNSR_NETWORK_TOKEN)')
    .option('--modules <list>', 'catalog serials to simulate, comma-separated, each optionally :UDM22 or :UDM23 (default UDM23)')
    .option('--count <n>', 'simulate n generated modules F0000001, F0000002 … (import them with --print-catalog)', number(1, 100_000, true))
    .option('--rate <r>', 'uplinks per second, all modules together', number(0.01, 1_000_000), 10)
    .option('--duration <s>', 'stop after s seconds (default: at Ctrl-C)', number(0.1, 31_536_000))
    .option('--uplinks <n>', 'stop after n uplinks', number(1, Number.MAX_SAFE_INTEGER, true))
    .option('--concurrency <n>', 'most callbacks in flight at once', number(1, 10_000, true), 32)
    .option('--seed <n>', 'random seed, to replay the same traffic', number(0, 2 ** 32 - 1, true))
    .option('--no-duplicates', 'each uplink heard by one base station only')
    .option('--path <path>', 'callback path on the server', '/network/sigfox/uplink')
    .option('--quiet', 'no progress line')
    .option('--json', 'print the summary as one JSON object')
    .option('--print-catalog', 'print the catalog CSV of the simulated modules (for snsr catalog import) and exit')
    .addHelpText(
      'after',
      [
        '',
        'Every third module is a gateway with one to three children. Each uplink is heard by one to three',
        'base stations (one callback each); about 1 % of uplinks are lost and 3 % repeated.',
        '',
        'Examples:',
        '  $ snsr simulate --url http://localhost:8080 --modules C0FE,BEEF:UDM22 --rate 2',
        '  $ snsr simulate --count 1000 --print-catalog > sim.csv && snsr catalog import sim.csv',
        '  $ snsr simulate --url http://localhost:8080 --count 1000 --rate 5000 --duration 30 --concurrency 64',
      ].join('\n'),
    )
    .action(async (options: SimulateOptions, command: Command) => {
      const usage = (message: string) => command.error(`error: ${message}`, { exitCode: 2 });
      if (options.modules !== undefined && options.count !== undefined) usage('use --modules or --count, not both');
      if (options.modules === undefined && options.count === undefined) usage('name the modules to simulate with --modules or --count');
      let modules;
      try {
        modules = options.modules !== undefined ? parseModules(options.modules) : generatedModules(options.count ?? 0);
      } catch (error) {
        return usage((error as Error).message);
      }
      if (options.printCatalog) return void process.stdout.write(catalogCsv(modules));
      if (options.url === undefined) return usage('--url is required, e.g. --url http://localhost:8080');
      const token = options.token ?? process.env.SNSR_NETWORK_TOKEN;
      if (!token) return usage('the network token is required: --token, or SNSR_NETWORK_TOKEN');
      const simulation = new Simulation({
        url: options.url,
        path: options.path,
        token,
        modules,
        rate: options.rate,
        durationS: options.duration,
        uplinks: options.uplinks,
        concurrency: options.concurrency,
        seed: options.seed,
        duplicates: options.duplicates,
        ...(!options.quiet && { onProgress: progressPrinter() }),
      });
      const stop = () => simulation.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const summary = await simulation.run();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (!options.quiet && process.stderr.isTTY) process.stderr.write('\n');
      process.stdout.write(options.json ? `${JSON.stringify(summary)}\n` : formatSummary(summary));
      if (summary.callbacks.sent > 0 && summary.callbacks.accepted === 0) {
        command.error('error: snsr accepted no callback (see the rejections above)', { exitCode: 1 });
      }
    });
}
