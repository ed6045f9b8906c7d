import { setImmediate as nextTurn } from 'node:timers/promises';

/** Work between two turns of the event loop at most, during long bulk operations. */
export const WORK_SLICE_MS = 5;

/**
 * A pause for loops over many items. SQLite answers synchronously, so a loop of awaited queries
 * never lets the event loop turn: 10,000 registrations would hold every other request (and
 * `/healthz`) for seconds. Awaiting the returned function in each iteration gives the loop a turn
 * once `sliceMs` of work has passed, and costs nothing otherwise.
 */
export function eventLoopPause(sliceMs = WORK_SLICE_MS): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await nextTurn();
    sliceStart = performance.now();
  };
}

/** Runs `work` on consecutive chunks of `items`, letting the event loop turn between chunks. */
export async function inChunks<T>(items: T[], size: number, work: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await nextTurn();
    await work(items.slice(start, start + size));
  }
}
