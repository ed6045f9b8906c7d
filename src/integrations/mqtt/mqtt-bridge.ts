import type { MqttClient } from 'mqtt';
import type { Logger } from 'pino';
import { callbackBody } from '../../delivery/callback-body.js';
import type { Lease } from '../../monitoring/lease.js';
import type { MqttFeedRepository } from '../../storage/mqtt-feed-repository.js';
import type { Notifier } from '../../storage/notifications.js';
import { presentAlert } from '../../wire/alert.js';
import { bidirCommand } from './bidir-command.js';
import type { BidirSetter } from './bidir-command.js';

export interface MqttSettings {
  url: string;
  /** How long a message must be committed before it is published (ids are taken before commit). */
  settleMs: number;
  /** Pause between passes while nothing is announced. */
  pollMs: number;
}

const BATCH = 200;
const PUBLISH_TIMEOUT_MS = 10_000;
const BIDIR_TOPIC = 'snsr/apps/+/modules/+/bidir/set';

/**
 * The MQTT integration. Publishes every message and alert, QoS 1, to
 * `snsr/apps/{appId}/modules/{serial}/up` and `.../alert` for each app the module is attached to,
 * reading them from the database after a durable cursor: the tables are the outbox, the cursor moves
 * once the broker has acknowledged, so whatever is stored while the broker is down is published when
 * it is back. Runs on the one process holding the `mqtt` lease (in order, once); that process also
 * takes bidir commands from `snsr/apps/{appId}/modules/{serial}/bidir/set`.
 */
export class MqttBridge {
  private client: MqttClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private unsubscribe: (() => void)[] = [];

  constructor(
    private readonly feed: MqttFeedRepository,
    private readonly lease: Lease,
    private readonly settings: MqttSettings,
    private readonly notifier: Notifier,
    private readonly setBidir: BidirSetter,
    private readonly log: Logger,
    private readonly count: (outcome: 'published' | 'bidir_set' | 'bidir_rejected') => void,
  ) {}

  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  start(): this {
    const wake = () => this.schedule(this.settings.settleMs);
    this.unsubscribe = [this.notifier.subscribe('messages', wake), this.notifier.subscribe('alerts', wake)];
    this.schedule(0);
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const stop of this.unsubscribe) stop();
    clearTimeout(this.timer);
    await this.running;
    await this.client?.endAsync().catch(() => undefined);
    await this.lease.release().catch(() => undefined);
  }

  /** One pass: publishes what is due if this process holds the lease; how many were published. */
  async pass(): Promise<number> {
    if (!(await this.lease.acquire())) {
      await this.disconnect();
      return 0;
    }
    const client = await this.connection();
    if (!client.connected) return 0;
    const settled = Date.now() - this.settings.settleMs;
    let published = 0;
    const messages = await this.feed.messagesAfter(await this.feed.cursor('messages'), settled, BATCH);
    const publishes = messages.flatMap(({ rows }) =>
      rows.map((row) => [`snsr/apps/${row.app_id}/modules/${row.module_serial}/up`, callbackBody(row, row.device_serial, row.app_id)] as const),
    );
    if (await this.publishAll(client, publishes)) {
      if (messages.length > 0) await this.feed.setCursor('messages', messages[messages.length - 1]!.id);
      published += publishes.length;
    } else return published;
    const alerts = await this.feed.alertsAfter(await this.feed.cursor('alerts'), settled, BATCH);
    const alertPublishes = alerts.flatMap(({ alert, apps }) =>
      apps.map((app) => {
        const body = JSON.stringify({ alert: presentAlert(alert), module: alert.moduleSerial, device: alert.deviceSerial, app });
        return [`snsr/apps/${app}/modules/${alert.moduleSerial}/alert`, body] as const;
      }),
    );
    if (await this.publishAll(client, alertPublishes)) {
      if (alerts.length > 0) await this.feed.setCursor('alerts', alerts[alerts.length - 1]!.id);
      published += alertPublishes.length;
    }
    if (messages.length >= BATCH / 2 || alerts.length >= BATCH / 2) this.again = true;
    return published;
  }

  /** Publishes all, QoS 1; true once the broker acknowledged every one. */
  private async publishAll(client: MqttClient, items: readonly (readonly [string, string])[]): Promise<boolean> {
    if (items.length === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PUBLISH_TIMEOUT_MS)));
    try {
      const sent = Promise.all(items.map(([topic, body]) => client.publishAsync(topic, body, { qos: 1 }))).then(() => true);
      const ok = await Promise.race([sent, timeout]);
      if (ok) for (let i = 0; i < items.length; i++) this.count('published');
      return ok;
    } catch (error) {
      this.log.warn({ err: error }, 'MQTT publish failed; retrying from the same point');
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private async connection(): Promise<MqttClient> {
    if (this.client) return this.client;
    // Loaded when this process first holds the lease: the others, and every CLI command, never load it.
    const { connect } = await import('mqtt');
    if (this.client) return this.client;
    const client = connect(this.settings.url, { reconnectPeriod: 1000, connectTimeout: 5000, clean: true, clientId: `snsr-${process.pid}-${Math.random().toString(16).slice(2, 8)}` });
    client.on('connect', () => {
      this.log.info({ url: this.settings.url }, 'MQTT broker connected');
      client.subscribe(BIDIR_TOPIC, { qos: 1 });
      this.schedule(0);
    });
    client.on('error', (error) => this.log.warn({ err: error }, 'MQTT connection error; reconnecting'));
    client.on('message', (topic, payload) => void this.onCommand(topic, payload.toString('utf8')));
    this.client = client;
    return client;
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.endAsync().catch(() => undefined);
  }

  private async onCommand(topic: string, payload: string): Promise<void> {
    try {
      const outcome = await bidirCommand(topic, payload, this.setBidir);
      this.count(outcome.ok ? 'bidir_set' : 'bidir_rejected');
      if (!outcome.ok) this.log.warn({ topic, reason: outcome.reason }, 'MQTT bidir command refused');
    } catch (error) {
      this.count('bidir_rejected');
      this.log.error({ err: error, topic }, 'MQTT bidir command failed');
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(() => undefined)
        .catch((error: unknown) => this.log.error({ err: error }, 'MQTT pass failed; trying again shortly'))
        .finally(() => {
          this.running = undefined;
          const next = this.again ? 0 : this.settings.pollMs;
          this.again = false;
          this.schedule(next);
        });
    }, ms);
    this.timer.unref();
  }
}
