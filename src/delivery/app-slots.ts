import pg from 'pg';

/**
 * Sending slots per app: how an app's in-flight limit holds across every worker. A worker sends a
 * delivery only while it holds a free slot of the delivery's app; it asks for slots when it has an
 * app's deliveries to send and gives them back once it has none left, so slots follow the work.
 */
export interface AppSlots {
  /**
   * Whether the slots are shared with other workers. When they are not (SQLite), the claim holds
   * the limit instead: an app's leases, across workers, never exceed its in-flight limit.
   */
  readonly shared: boolean;
  /** Slots of `appId` this worker holds now. */
  held(appId: number): number;
  /** Tries to hold up to `want` slots of the app in all; resolves with how many it holds now. */
  acquire(appId: number, want: number): Promise<number>;
  /** Gives back every slot of the app. */
  release(appId: number): Promise<void>;
  close(): Promise<void>;
}

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
  async release(): Promise<void> {}
  async close(): Promise<void> {}
}

// Advisory-lock keys of slots: one namespace ("snsr" slots) above any app id × 1024 + slot.
const NAMESPACE = 0x736e7372n << 32n;
const slotKey = (appId: number, slot: number) => String(NAMESPACE + BigInt(appId) * 1024n + BigInt(slot));

/**
 * PostgreSQL session advisory locks, one per (app, slot), held on one dedicated connection: the
 * server frees them when a worker's connection ends, so a worker that dies never keeps a slot.
 * Trying locks never waits; a worker that found an app's slots taken tries again when it pumps.
 */
export class PostgresSlots implements AppSlots {
  readonly shared = true;
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly slots = new Map<number, Set<number>>();
  /** One statement at a time on the connection. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly limit: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  held(appId: number): number {
    return this.slots.get(appId)?.size ?? 0;
  }

  acquire(appId: number, want: number): Promise<number> {
    return this.serially(async () => {
      const mine = this.slots.get(appId) ?? new Set<number>();
      const missing = Math.min(want, this.limit) - mine.size;
      if (missing <= 0) return mine.size;
      const free = Array.from({ length: this.limit }, (_, slot) => slot).filter((slot) => !mine.has(slot));
      const client = await this.connect();
      // Every candidate is tried (a try never waits): extra slots are kept while the app has work.
      const { rows } = await client.query<{ slot: number }>('select slot from unnest($1::int[], $2::bigint[]) as c(slot, key) where pg_try_advisory_lock(key)', [
        free,
        free.map((slot) => slotKey(appId, slot)),
      ]);
      for (const row of rows) mine.add(row.slot);
      if (mine.size > 0) this.slots.set(appId, mine);
      return mine.size;
    }).catch((error: unknown) => {
      this.onError(error);
      return this.held(appId);
    });
  }

  release(appId: number): Promise<void> {
    const mine = this.slots.get(appId);
    if (!mine || mine.size === 0) return Promise.resolve();
    this.slots.delete(appId);
    const keys = [...mine].map((slot) => slotKey(appId, slot));
    return this.serially(async () => {
      await this.client?.query('select pg_advisory_unlock(key) from unnest($1::bigint[]) as k(key)', [keys]);
    }).catch(this.onError);
  }

  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.slots.clear();
    await client?.end().catch(() => undefined);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, keepAlive: true });
      const lost = (error: unknown) => {
        if (this.client !== client) return;
        // The server freed every lock of the session: nothing is held any more.
        this.client = undefined;
        this.slots.clear();
        this.onError(error);
      };
      client.on('error', lost);
      client.on('end', () => lost(new Error('the delivery slots connection ended')));
      await client.connect();
      this.client = client;
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }
}
