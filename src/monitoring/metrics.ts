import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolUse } from '../storage/storage.js';
import { WAL_LIMIT_BYTES } from '../storage/sqlite/connect.js';

/** What the registry reads when scraped: the outbox's backlog and the database pool. */
export interface MetricSources {
  /** Pending deliveries and the age (ms) of the oldest due one. */
  queue(): Promise<{ depth: number; oldestMs: number }>;
  poolUse(): PoolUse;
  /** The SQLite WAL file's size in bytes (0 on PostgreSQL). */
  walBytes(): number;
  /** Sends by outcome of this process's delivery workers, since they started. */
  deliveries(): { delivered: number; retrying: number; failed: number };
  /** Device-token history reads sent to PostgreSQL in batches, and the statements that carried them. */
  historyBatches(): { reads: number; batches: number };
}

/** How an uplink ended, as `snsr_uplinks_total` labels it. */
export type UplinkOutcome = 'new' | 'duplicate' | 'replay' | 'repetition' | 'invalid' | 'rejected';

/**
 * The Prometheus metrics of one process, every name prefixed `snsr_`: counters the code moves as
 * things happen, and gauges read from their source when `/metrics` is scraped. Each process has its
 * own registry: Prometheus scrapes every process (or every `--processes` worker) and sums.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly uplinks: Counter<'outcome'>;
  readonly ingestSeconds: Histogram;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly alerts: Counter<'kind'>;
  readonly openStreams: Gauge;
  readonly mqtt: Counter<'outcome'>;
  readonly alertEmails: Counter<'outcome'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'snsr_', eventLoopMonitoringPrecision: 20 });
    this.uplinks = new Counter({
      name: 'snsr_uplinks_total',
      help: 'Uplinks received from the network, by outcome: new (a message), duplicate (another station), replay, repetition, invalid (not UDM), rejected (unknown module)',
      labelNames: ['outcome'],
      registers,
    });
    this.ingestSeconds = new Histogram({
      name: 'snsr_ingest_duration_seconds',
      help: 'Time from receiving an uplink to its commit',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.httpRequests = new Counter({
      name: 'snsr_http_requests_total',
      help: 'HTTP requests answered, by method, route (the pattern, not the URL) and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.alerts = new Counter({ name: 'snsr_alerts_raised_total', help: 'Alerts raised on watched devices, by kind', labelNames: ['kind'], registers });
    this.openStreams = new Gauge({ name: 'snsr_open_streams', help: 'Live event streams open on this process', registers });
    this.mqtt = new Counter({
      name: 'snsr_mqtt_messages_total',
      help: 'MQTT messages: published, and bidir commands received (bidir_set) or refused (bidir_rejected)',
      labelNames: ['outcome'],
      registers,
    });
    this.alertEmails = new Counter({
      name: 'snsr_alert_emails_total',
      help: 'Alert emails (one per account and digest): sent (SMTP accepted it), failed (will be retried)',
      labelNames: ['outcome'],
      registers,
    });
    new Counter({
      name: 'snsr_deliveries_total',
      help: "Callback sends by this process's workers, by outcome: delivered, retrying (failed, will retry), failed (for good)",
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        for (const [outcome, count] of Object.entries(sources.deliveries())) this.inc({ outcome }, count);
      },
    });
    new Gauge({
      name: 'snsr_delivery_queue_depth',
      help: 'Deliveries pending (queued or waiting for a retry), all processes',
      registers,
      async collect() {
        const { depth } = await sources.queue();
        this.set(depth);
      },
    });
    new Gauge({
      name: 'snsr_delivery_oldest_pending_seconds',
      help: 'Age of the oldest delivery due now and not sent yet (0 when none)',
      registers,
      async collect() {
        const { oldestMs } = await sources.queue();
        this.set(oldestMs / 1000);
      },
    });
    const batched = (name: string, help: string, read: (sent: { reads: number; batches: number }) => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read(sources.historyBatches()));
        },
      });
    batched('snsr_history_batched_reads_total', 'Device-token history reads sent to PostgreSQL in batches (0 on SQLite)', (sent) => sent.reads);
    batched('snsr_history_batches_total', 'Statements that carried them: reads over batches is the mean batch size', (sent) => sent.batches);
    const pool = (name: string, help: string, read: (use: PoolUse) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(sources.poolUse()));
        },
      });
    pool('snsr_db_pool_max', 'Database connections the pool may open', (use) => use.max);
    pool('snsr_db_pool_open', 'Database connections open', (use) => use.open);
    pool('snsr_db_pool_busy', 'Database connections lent out to a query or transaction', (use) => use.busy);
    pool('snsr_db_pool_waiting', 'Callers waiting for a database connection', (use) => use.waiting);
    new Gauge({
      name: 'snsr_sqlite_wal_bytes',
      help: `Size of the SQLite write-ahead log file; it starts over past ${WAL_LIMIT_BYTES / 2 ** 20} MiB (0 on PostgreSQL)`,
      registers,
      collect() {
        this.set(sources.walBytes());
      },
    });
  }

  /** Counts an uplink and how long it took to commit. */
  uplink(outcome: UplinkOutcome, seconds: number): void {
    this.uplinks.inc({ outcome });
    this.ingestSeconds.observe(seconds);
  }
}
