import { describe, expect, it } from 'vitest';
import { ReadBatches } from '../../src/storage/page-batches.js';

/** A batch runner that records each batch and answers when told to. */
function recorder() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const run = async (reads: readonly number[]) => {
    batches.push([...reads]);
    await new Promise<void>((release) => releases.push(release));
    return reads.map((read) => (read < 0 ? new Error(`no ${read}`) : read === 0 ? undefined : `answer ${read}`));
  };
  return { batches, releases, run };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
};

describe('read batches', () => {
  it('send the reads that arrive together as one batch, and answer each its own', async () => {
    const { batches, releases, run } = recorder();
    const batched = new ReadBatches(run, { maxInFlight: 2, maxBatchSize: 64 });
    const answers = Promise.all([1, 2, 0, 3].map((read) => batched.read(read)));
    await until(() => releases.length === 1);
    releases[0]!();
    expect(await answers).toEqual(['answer 1', 'answer 2', undefined, 'answer 3']);
    expect(batches).toEqual([[1, 2, 0, 3]]);
  });

  it('hold reads back while the batches in flight are at the limit, then send them together', async () => {
    const { batches, releases, run } = recorder();
    const batched = new ReadBatches(run, { maxInFlight: 1, maxBatchSize: 64 });
    const first = batched.read(1);
    await until(() => batches.length === 1);
    const waiting = [2, 3, 4].map((read) => batched.read(read));
    // Several turns of the event loop: nothing more leaves while the first batch runs.
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    releases[0]!();
    await until(() => releases.length === 2);
    releases[1]!();
    expect(await first).toBe('answer 1');
    expect(await Promise.all(waiting)).toEqual(['answer 2', 'answer 3', 'answer 4']);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('split batches at their largest size', async () => {
    const { batches, releases, run } = recorder();
    const batched = new ReadBatches(run, { maxInFlight: 3, maxBatchSize: 2 });
    const answers = Promise.all([1, 2, 3, 4, 5].map((read) => batched.read(read)));
    await until(() => releases.length === 3);
    for (const release of releases) release();
    expect(await answers).toEqual(['answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('fail a read alone for its own error, and every read of a batch whose statement fails', async () => {
    const { releases, run } = recorder();
    const batched = new ReadBatches(run, { maxInFlight: 1, maxBatchSize: 64 });
    const answers = Promise.allSettled([1, -2].map((read) => batched.read(read)));
    await until(() => releases.length === 1);
    releases[0]!();
    const [one, two] = await answers;
    expect(one).toEqual({ status: 'fulfilled', value: 'answer 1' });
    expect(two).toMatchObject({ status: 'rejected', reason: { message: 'no -2' } });

    let calls = 0;
    const failing = new ReadBatches<number, string>(
      async () => {
        calls++;
        throw new Error('the database went away');
      },
      { maxInFlight: 1, maxBatchSize: 64 },
    );
    const failed = await Promise.allSettled([1, 2, 3].map((read) => failing.read(read)));
    expect(failed.map((result) => result.status === 'rejected' && (result.reason as Error).message)).toEqual(Array(3).fill('the database went away'));
    // The limit is given back after a failure: the next read still leaves.
    await expect(failing.read(4)).rejects.toThrow('the database went away');
    expect(calls).toBe(2);
  });
});
