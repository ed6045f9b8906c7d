import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { dialects } from '../helpers/database.js';
import { startApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { GroupCommit } from '../../src/ingest/group-commit.js';
import type { Database } from '../../src/storage/schema.js';

class Rejected extends Error {}

describe.each(dialects)('group commit (%s)', (dialect) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startApp(dialect);
  });
  afterAll(() => app.close());

  const db = () => app.context.storage.db;
  const commits = (concurrency = 1) => new GroupCommit(db(), { maxBatch: 8, concurrency, isRejection: (e) => e instanceof Rejected });
  const write = (trx: Kysely<Database>, name: string) => trx.insertInto('settings').values({ name, value: 'v' }).execute();
  const names = async (prefix: string) =>
    (await db().selectFrom('settings').select('name').where('name', 'like', `${prefix}%`).orderBy('name').execute()).map((r) => r.name);

  it('commits the jobs queued in one turn of the event loop together, in batches of at most maxBatch', async () => {
    const group = commits();
    const transactions: Kysely<Database>[] = [];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        group.run(`k${i}`, async (trx) => {
          transactions.push(trx);
          await write(trx, `batch-${String(i).padStart(2, '0')}`);
          return i;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const sizes = [...new Set(transactions)].map((trx) => transactions.filter((t) => t === trx).length);
    expect(sizes).toEqual([8, 8, 4]);
    expect(await names('batch-')).toHaveLength(20);
  });

  it('commits a lone job on the next turn, and jobs arriving during a batch in the next batch', async () => {
    const group = commits();
    const transactions: Kysely<Database>[] = [];
    let late: Promise<void> | undefined;
    await group.run('first', async (trx) => {
      transactions.push(trx);
      // queued while this batch runs
      late = group.run('late', async (t) => void transactions.push(t));
    });
    await late;
    expect(transactions).toHaveLength(2);
    expect(transactions[0]).not.toBe(transactions[1]);
  });

  it('runs the jobs of a batch in key order, each seeing the writes of those before it', async () => {
    const group = commits();
    const order: string[] = [];
    const blocker = group.run('zz', async () => {});
    const seen = await Promise.all(
      ['c', 'a', 'b'].map((key) =>
        group.run(key, async (trx) => {
          order.push(key);
          await write(trx, `order-${key}`);
          return trx.selectFrom('settings').select('name').where('name', 'like', 'order-%').execute();
        }),
      ),
    );
    await blocker;
    expect(order).toEqual(['a', 'b', 'c']);
    expect(seen.map((rows) => rows.length)).toEqual([3, 1, 2]);
  });

  it('fails a rejected job alone, the others of its batch committing', async () => {
    const group = commits();
    const blocker = group.run('0', async () => {});
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((key) =>
        group.run(key, async (trx) => {
          if (key === 'b') throw new Rejected('no such module');
          await write(trx, `reject-${key}`);
        }),
      ),
    );
    await blocker;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await names('reject-')).toEqual(['reject-a', 'reject-c']);
  });

  it('rolls back a job that fails half-way and re-runs the others alone, each committed once', async () => {
    const group = commits();
    const runs: Record<string, number> = {};
    const blocker = group.run('0', async () => {});
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((key) =>
        group.run(key, async (trx) => {
          runs[key] = (runs[key] ?? 0) + 1;
          await write(trx, `atomic-${key}`);
          if (key === 'b') throw new Error('disk on fire');
          await write(trx, `atomic-${key}-2`);
        }),
      ),
    );
    await blocker;
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('disk on fire');
    expect(await names('atomic-')).toEqual(['atomic-a', 'atomic-a-2', 'atomic-c', 'atomic-c-2']);
    // a and b ran in the batch, which b aborted before c's turn; then each ran alone
    expect(runs).toEqual({ a: 2, b: 2, c: 1 });
  });

  it.runIf(dialect === 'postgres')('starts a batch beside a running one only once overlapAt jobs wait', async () => {
    const group = new GroupCommit(db(), { maxBatch: 8, concurrency: 2, overlapAt: 3, isRejection: () => false });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let entered!: () => void;
    const running = new Promise<void>((resolve) => (entered = resolve));
    const first = group.run('first', async () => {
      entered();
      await gate;
    });
    await running;
    const batches = new Map<string, Kysely<Database>>();
    const job = (key: string) => group.run(key, async (trx) => void batches.set(key, trx));
    const waiting = [job('w1'), job('w2')];
    // Past the turn on which a batch would have taken them (setImmediate), a third job comes.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    // Three wait: one batch takes them all while the first is still running.
    await Promise.all([...waiting, job('w3')]);
    expect(new Set(batches.values()).size).toBe(1);
    open();
    await first;
  });

  describe('with a commit delay', () => {
    const delayed = (delayMs: number) => new GroupCommit(db(), { maxBatch: 8, concurrency: 1, overlapAt: 3, delayMs, isRejection: () => false });
    const turns = async (n: number) => {
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    /** Jobs that note the transaction each ran in. */
    const recorder = (group: GroupCommit) => {
      const batches = new Map<string, Kysely<Database>>();
      return { batches, job: (key: string) => group.run(key, async (trx) => void batches.set(key, trx)) };
    };

    /** Commits one batch of the jobs `keys`, the first queuing `next` while it runs; `during` is `next`'s job. */
    const queuedDuring = async (group: GroupCommit, keys: string[], next: () => Promise<unknown>) => {
      let during!: Promise<unknown>;
      await Promise.all(keys.map((key, i) => group.run(key, async () => void (i === 0 && (during = next())))));
      return { during };
    };

    /** Within reach of the test's limit: a job that waited for a ten-minute delay would not be. */
    const atOnce = (job: Promise<unknown>) =>
      Promise.race([job.then(() => 'committed'), new Promise((resolve) => setTimeout(resolve, 30_000, 'waited').unref())]);

    it('starts a lone job, and a job sent after the last one committed, at once', async () => {
      const group = delayed(600_000);
      expect(await atOnce(group.run('alone', async () => {}))).toBe('committed');
      // A client sending one job after the other: no job came while the last batch ran.
      expect(await atOnce(group.run('next', async () => {}))).toBe('committed');
    });

    it('does not wait after a batch that filled: half overlapAt or more', async () => {
      const group = delayed(600_000);
      const { during } = await queuedDuring(group, ['f1', 'f2'], () => group.run('j', async () => {}));
      expect(await atOnce(during)).toBe('committed');
    });

    it('after a light batch (one job, another coming meanwhile), gathers jobs of later turns into one batch, started once overlapAt wait', async () => {
      const group = delayed(600_000);
      const { batches, job } = recorder(group);
      const { during } = await queuedDuring(group, ['first'], () => job('j1'));
      // Past the turn on which a batch would have taken j1 alone.
      await turns(3);
      const later = job('j2');
      await turns(3);
      expect(batches.size).toBe(0);
      // The third makes overlapAt: the batch starts now, not ten minutes on.
      await Promise.all([during, later, job('j3')]);
      expect(new Set(batches.values()).size).toBe(1);
    });

    it('starts the waiting batch when the delay ends', async () => {
      const group = delayed(2_000);
      const { batches, job } = recorder(group);
      const { during } = await queuedDuring(group, ['first'], () => job('a'));
      await turns(3);
      await Promise.all([during, job('b')]);
      expect([...batches.keys()].sort()).toEqual(['a', 'b']);
      expect(new Set(batches.values()).size).toBe(1);
    });
  });

  it('settles a job only once its transaction has committed, and drain waits for every job', async () => {
    const group = commits(dialect === 'postgres' ? 3 : 1);
    let settled = 0;
    const jobs = Array.from({ length: 12 }, (_, i) => group.run(`d${i}`, (trx) => write(trx, `drain-${String(i).padStart(2, '0')}`)).then(() => settled++));
    await group.drain();
    expect(settled).toBe(12);
    await Promise.all(jobs);
    // visible to every connection: committed, not merely written
    expect(await names('drain-')).toHaveLength(12);
    await group.drain();
  });
});
