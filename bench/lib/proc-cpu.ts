// CPU time of other processes, from /proc/<pid>/stat (utime + stime): what process.cpuUsage of the
// bench cannot see, the snsr processes it started and the PostgreSQL backends serving them.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import pg from 'pg';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** The fields of /proc/<pid>/stat after the command name; undefined once the process has ended. */
function statOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  } catch {
    return undefined;
  }
}

const cpuMsIn = (fields: string[]): number => ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;

/** CPU milliseconds a process has used so far; 0 once it has ended. */
export function cpuMsOf(pid: number): number {
  const fields = statOf(pid);
  return fields ? cpuMsIn(fields) : 0;
}

/** A process and every process it forked (a primary and its cluster workers). */
export function familyOf(pid: number): number[] {
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => Number(statOf(child)?.[1]) === pid);
  return [pid, ...children];
}

/**
 * CPU milliseconds used so far by each PostgreSQL backend connected to the database at `url` (other
 * than the one asking): the database's share of the work. Shared background processes (WAL
 * writer, checkpointer) are left out.
 */
export async function backendCpuMs(url: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const used = new Map<number, number>();
    for (const { pid } of rows) {
      const fields = statOf(pid);
      if (fields) used.set(pid, cpuMsIn(fields));
    }
    return used;
  } finally {
    await client.end();
  }
}

/** CPU ms the processes used between two readings (those that appeared meanwhile count from 0). */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += Math.max(0, ms - (before.get(pid) ?? 0));
  return spent;
}

/** CPU ms used so far by each of `pids`, for `cpuSpent`. */
export const cpuMsOfEach = (pids: readonly number[]): Map<number, number> => new Map(pids.map((pid) => [pid, cpuMsOf(pid)]));
