import type { AppSlots } from './app-slots.js';

/**
 * One worker's share of each app: how many of its deliveries it holds (claimed, ready or in flight)
 * and sends now, and the sending slots it asks for. An app's slots go back once the worker has held
 * nothing of it for `lingerMs`, so slots follow the work without being given back and taken again
 * between two claims of one app's backlog (two round trips each time, on PostgreSQL).
 *
 * A worker that asks for an app's slots and gets none (other workers hold them all) is shut out of
 * the app for `pollMs`: it hands back what it claimed of it and claims none of it meanwhile. Leases
 * of an app are few across all workers (`SendQueue.plan`); kept by a worker without slots, they
 * would starve the one holding them, which cannot claim more until its slots linger out.
 */
export class AppShares {
  /** Per app: [in flight, held (ready + in flight)]. */
  private readonly perApp = new Map<number, { sending: number; held: number }>();
  private readonly asking = new Set<number>();
  /** Apps this worker holds nothing of, and the timers that give their slots back. */
  private readonly idle = new Map<number, NodeJS.Timeout>();
  /** Apps whose slots other workers held at the last ask, until when (`performance.now()`). */
  private readonly shutOut = new Map<number, number>();
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly slots: AppSlots,
    private readonly pollMs: number,
    /** Called when more slots may be had: the worker pumps again. */
    private readonly onSlots: () => void,
    /** Called when other workers hold every slot of the app: the worker hands back its claims of it. */
    private readonly onShutOut: (appId: number) => void = () => {},
    private readonly lingerMs = Math.max(500, 5 * pollMs),
  ) {}

  /** Whether other workers held every slot of the app when this one last asked, `pollMs` ago at most. */
  isShutOut(appId: number): boolean {
    const until = this.shutOut.get(appId);
    if (until === undefined) return false;
    if (performance.now() < until) return true;
    this.shutOut.delete(appId);
    return false;
  }

  sending(appId: number): number {
    return this.perApp.get(appId)?.sending ?? 0;
  }

  held(appId: number): number {
    return this.perApp.get(appId)?.held ?? 0;
  }

  count(appId: number, sending: number, held: number): void {
    const entry = this.perApp.get(appId) ?? { sending: 0, held: 0 };
    entry.sending += sending;
    entry.held += held;
    clearTimeout(this.idle.get(appId));
    this.idle.delete(appId);
    if (entry.held > 0) return void this.perApp.set(appId, entry);
    this.perApp.delete(appId);
    // Nothing of this app left here: unless more comes meanwhile, its slots go back for other workers.
    const timer = setTimeout(() => {
      this.idle.delete(appId);
      void this.slots.release(appId);
    }, this.lingerMs);
    this.idle.set(appId, timer.unref());
  }

  /** Asks for more of an app's slots (one request per app at a time), pumping again when it has them. */
  ask(appId: number, want: number): void {
    if (this.asking.has(appId)) return;
    const before = this.slots.held(appId);
    this.asking.add(appId);
    void this.slots.acquire(appId, want).then((held) => {
      this.asking.delete(appId);
      if (held !== undefined && held > before) return this.onSlots();
      // Shut out only on the store's word: while it is unreachable the claims stay and wait.
      if (held === 0) {
        this.shutOut.set(appId, performance.now() + this.pollMs);
        this.onShutOut(appId);
      }
      if (!this.retry) {
        // Other workers hold them all: look again shortly (their sends end within the timeout,
        // and a stalled worker's slots end with their lifetime).
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.onSlots();
        }, this.pollMs);
      }
    });
  }

  /** Stops asking; the slots still held go with the worker's `slots.close()`. */
  stop(): void {
    clearTimeout(this.retry);
    for (const timer of this.idle.values()) clearTimeout(timer);
    this.idle.clear();
  }
}
