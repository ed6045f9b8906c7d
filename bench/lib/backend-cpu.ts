import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * CPU milliseconds used so far by each PostgreSQL backend connected to the database at `url` (other
 * than the one asking), from /proc/<pid>/stat (utime + stime): the database's share of the work,
 * which process.cpuUsage of the server cannot see. Shared background processes are left out.
 */
export async function backendCpuMs(url: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const used = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        used.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
      } catch {
        // the backend ended meanwhile
      }
    }
    return used;
  } finally {
    await client.end();
  }
}

/** CPU ms the backends used between two readings (backends that appeared meanwhile count from 0). */
export function backendCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) spent += ms - (before.get(pid) ?? 0);
  return spent;
}
