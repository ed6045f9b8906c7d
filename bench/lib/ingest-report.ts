// The ingest bench's table and target lines, from the measured rounds of each load.
import type { Summary } from '../../src/simulator/simulation.js';
import type { ServerReport } from './ingest-server.js';
import type { PipelineRun } from './pipeline-load.js';
import { median } from './closed-loop.js';
import { atLeast, atMost, checked } from './target-figures.js';

/** One measured round of one load: the simulator's summary, the server's report, the backends' CPU. */
export interface Round {
  summary: Summary;
  server: ServerReport;
  /** CPU of the PostgreSQL backends serving the bench database (ms), or null on SQLite and for the floor. */
  databaseCpuMs: number | null;
}

/** A load's rounds, beside the floor's rounds of the same run (round i of each measured back to back). */
export interface Row {
  dialect: string;
  route: string;
  traffic: string;
  rounds: Round[];
  floors: Round[];
  /** The same process's pipeline driven without HTTP (the one-station row). */
  pipeline?: PipelineRun;
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

/** A row's figures: medians of its rounds; CPU per uplink over all of them; peaks the highest. */
function figures({ rounds, floors }: Row) {
  const of = (pick: (s: Summary) => number) => median(rounds.map((r) => pick(r.summary)));
  const fresh = Math.max(1, sum(rounds.map((r) => r.summary.outcomes.new)));
  const database = rounds.map((r) => r.databaseCpuMs);
  return {
    callbacks: of((s) => s.callbacksPerSecond),
    // Each round against the floor's round beside it, then the median of those ratios.
    ratio: median(rounds.map((r, i) => r.summary.callbacksPerSecond / floors[i]!.summary.callbacksPerSecond)),
    uplinks: of((s) => s.uplinksPerSecond),
    p50: of((s) => s.latencyMs.p50),
    p99: of((s) => s.latencyMs.p99),
    rssMb: Math.max(...rounds.map((r) => r.server.rssPeakMb)),
    walMb: Math.max(...rounds.map((r) => r.server.walPeakMb)),
    snsrMs: sum(rounds.map((r) => r.server.cpuMs)) / fresh,
    databaseMs: database.every((ms) => ms !== null) ? sum(database as number[]) / fresh : null,
    busy: median(rounds.map((r) => r.server.busy)),
    refused: sum(rounds.map((r) => r.summary.callbacks.rejected + r.summary.callbacks.failed)),
  };
}

const WIDTHS = [9, 20, 13, 12, 8, 10, 9, 9, 11, 11, 11, 12];
const pad = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(WIDTHS[i]!) : c.padStart(WIDTHS[i]!))).join('  ');

export function printRows(rows: Row[], walLimitBytes: number): void {
  console.log(pad(['database', 'route', 'traffic', 'callbacks/s', '× floor', 'uplinks/s', 'ack p50', 'ack p99', 'server RSS', 'snsr CPU', 'PG CPU', 'server busy']));
  const figured = rows.map((row) => ({ row, f: figures(row) }));
  for (const { row, f } of figured) {
    const snsr = row.route === 'snsr';
    const ms = (value: number | null) => (value === null || !snsr ? '-' : `${value.toFixed(3)} ms`);
    const cells = [row.dialect, row.route, row.traffic, f.callbacks.toFixed(0), f.ratio.toFixed(3), f.uplinks.toFixed(0), `${f.p50.toFixed(1)} ms`, `${f.p99.toFixed(1)} ms`];
    console.log(pad([...cells, `${f.rssMb.toFixed(0)} MB`, ms(f.snsrMs), ms(f.databaseMs), `${(f.busy * 100).toFixed(0)} %`]));
    if (f.refused > 0) console.log(`  !! ${f.refused} callbacks rejected or failed: ${JSON.stringify(row.rounds.map((r) => r.summary.rejections))}`);
  }
  console.log('callbacks/s = acknowledged callbacks per second (each acknowledged only after its transaction committed); × floor = the');
  console.log("median over the rounds of that over the floor's callbacks/s in the same round. uplinks/s = distinct uplinks (a callback");
  console.log('per station that heard it); every acknowledged uplink was found stored. snsr CPU, PG CPU = CPU time per new uplink of');
  console.log('the snsr process and of the PostgreSQL backends serving it (/proc), over all rounds. server busy = event-loop');
  console.log('utilization: well below 100 %, something else was the limit.');
  for (const { row, f } of figured.filter(({ row: r }) => r.route === 'snsr' && r.traffic === 'one station')) {
    const goal = row.dialect === 'sqlite' ? 0.4 : 0.15;
    const ratio = atLeast(f.ratio, goal, 4);
    const checks = [`${ratio.shown} of the floor (${ratio.verdict})`];
    if (row.dialect === 'sqlite') {
      checks.push(`p99 ${checked(atMost(f.p99, 25, 2, ' ms', true))}`);
      checks.push(`RSS ${checked(atMost(f.rssMb, 250, 1, ' MB', true))}`);
      checks.push(`WAL file at most ${f.walMb.toFixed(0)} MB (the log starts over past ${walLimitBytes / 2 ** 20} MB)`);
    } else {
      checks.push(`snsr CPU ${checked(atMost(f.snsrMs, 0.3, 4, ' ms/uplink'))}`);
      checks.push(`PostgreSQL CPU ${checked(atMost(f.databaseMs ?? NaN, 0.3, 4, ' ms/uplink'))}`);
    }
    console.log(`${row.dialect}, every request a new uplink: ${checks.join('; ')}`);
    if (row.pipeline) console.log(`${row.dialect}, ${cpuShares(row.pipeline, f.snsrMs, row.floors)}`);
  }
}

/**
 * The pipeline's CPU per uplink without HTTP beside the route's and the floor server's per request,
 * and the share of the floor each would give were the process's CPU the only limit (as it nearly is
 * for both servers): floor ÷ route for the route as measured, floor ÷ (floor + pipeline) for one
 * whose HTTP cost no more than the bare server's.
 */
function cpuShares(pipeline: PipelineRun, routeMs: number, floors: Round[]): string {
  const alone = pipeline.cpuMs / Math.max(1, pipeline.fresh);
  const floor = sum(floors.map((r) => r.server.cpuMs)) / Math.max(1, sum(floors.map((r) => r.summary.callbacks.accepted)));
  return (
    `CPU per uplink: ${alone.toFixed(3)} ms in the pipeline alone (no HTTP, ${pipeline.fresh} uplinks), ${routeMs.toFixed(3)} ms through HTTP; ` +
    `the floor's server ${floor.toFixed(3)} ms per request. By CPU: ${(floor / routeMs).toFixed(3)} of the floor as measured, ` +
    `${(floor / (floor + alone)).toFixed(3)} with HTTP no dearer than the floor's`
  );
}
