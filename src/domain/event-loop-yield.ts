import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Runs `work` on consecutive chunks of `items`, letting the event loop turn between chunks. SQLite
 * answers synchronously, so a loop of awaited queries never lets the event loop turn: 10,000
 * registrations in one go would hold every other request (and `/healthz`) for seconds.
 */
export async function inChunks<T>(items: T[], size: number, work: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await nextTurn();
    await work(items.slice(start, start + size));
  }
}
