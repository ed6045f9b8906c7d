interface Waiter<V> {
  resolve: (value: V) => void;
  reject: (error: unknown) => void;
}

/**
 * Looks up, in one query, every key asked for in the same turn of the event loop: sends that start
 * together are fenced by one round trip instead of one each. A key the lookup leaves out gets
 * `missing`.
 */
export class TickBatch<K, V> {
  private waiting = new Map<K, Waiter<V>[]>();
  private scheduled = false;

  constructor(
    private readonly lookup: (keys: K[]) => Promise<Map<K, V>>,
    private readonly missing: V,
  ) {}

  get(key: K): Promise<V> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(key) ?? [];
      waiters.push({ resolve, reject });
      this.waiting.set(key, waiters);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.run());
    });
  }

  private async run(): Promise<void> {
    const batch = this.waiting;
    this.waiting = new Map();
    this.scheduled = false;
    try {
      const found = await this.lookup([...batch.keys()]);
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(found.get(key) ?? this.missing);
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  }
}
