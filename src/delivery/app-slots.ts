/**
 * Sending slots per app: how an app's in-flight limit holds across every worker. A worker sends a
 * delivery only while it holds a free slot of the delivery's app; it asks for slots when it has an
 * app's deliveries to send and gives them back once it has none left, so slots follow the work.
 * Shared slots have a lifetime: a worker that stalls or dies loses them once it ends, and another
 * worker may take them.
 */
export interface AppSlots {
  /**
   * Whether the slots are shared with other workers. When they are not (SQLite), the claim holds
   * the limit instead: an app's leases, across workers, never exceed its in-flight limit.
   */
  readonly shared: boolean;
  /** Slots of `appId` this worker holds now (as far as its own clock can tell). */
  held(appId: number): number;
  /**
   * Tries to hold up to `want` slots of the app in all; resolves with how many it holds now, or
   * undefined when the store could not be asked (unreachable: nothing is known of other workers).
   */
  acquire(appId: number, want: number): Promise<number | undefined>;
  /**
   * The fence as a send starts: renews this worker's slots of the app and says how many it still
   * holds, and the `performance.now()` until which it surely does.
   */
  fence(appId: number): Promise<SlotFence>;
  /** Gives back every slot of the app. */
  release(appId: number): Promise<void>;
  close(): Promise<void>;
}

export interface SlotFence {
  held: number;
  validUntil: number;
}

/**
 * Room between a slot's end in the shared store and this worker's own idea of it (clock rates,
 * latency): at most a second, and at most a quarter of the lifetime.
 */
export const slotMargin = (ttlMs: number) => Math.min(1000, ttlMs / 4);

/** One process owns the database (SQLite): every slot is this worker's; claims hold the limit. */
export class LocalSlots implements AppSlots {
  readonly shared = false;
  constructor(private readonly limit: number) {}
  held(): number {
    return this.limit;
  }
  async acquire(): Promise<number> {
    return this.limit;
  }
  async fence(): Promise<SlotFence> {
    return { held: this.limit, validUntil: Infinity };
  }
  async release(): Promise<void> {}
  async close(): Promise<void> {}
}
