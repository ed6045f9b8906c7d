import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Alert } from '../domain/alerts.js';
import { enqueueAlertDeliveries } from '../delivery/outbox.js';
import { AlertsRepository } from '../storage/alerts-repository.js';
import type { Capabilities } from '../storage/capabilities.js';
import { publish } from '../storage/notifications.js';
import type { Database } from '../storage/schema.js';
import { Lease } from './lease.js';

export interface WatchdogSettings {
  /** Time between passes. */
  intervalMs: number;
  /** A device is lost once silent for its period plus this share of it (0.5: 1.5 periods). */
  tolerance: number;
  /** Period (s) of watched devices whose keep-alives, module and apps say nothing; undefined: not watched for contact. */
  defaultPeriodS: number | undefined;
}

/** A watched device and what says how often it should be heard. */
interface Candidate {
  id: number;
  module_serial: string;
  account_id: number | null;
  lastseen: number;
  period_s: number | null;
  module_period_s: number | null;
  app_period_s: number | null;
}

/**
 * The lost-contact watchdog. Every pass, the process holding the `watchdog` lease (one across all
 * processes sharing the database) looks for watched devices silent for longer than their expected
 * period with tolerance, raises a `lost_contact` alert on each and sets its `network` to OFF. The
 * next uplink ends it (ingest's raise-alerts step). The open-alert index makes raising idempotent:
 * a restarted or competing process never raises the same loss twice.
 */
export class Watchdog {
  readonly lease: Lease;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Kysely<Database>,
    capabilities: Capabilities,
    private readonly settings: WatchdogSettings,
    private readonly log: Logger,
    private readonly onRaised: (alerts: Alert[]) => void = () => {},
    private readonly now: () => number = Date.now,
    owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
  ) {
    // Renewed every pass: a term of three passes survives a slow one, and a dead holder is replaced soon.
    this.lease = new Lease(db, capabilities, 'watchdog', owner, Math.max(3 * settings.intervalMs, 10_000));
  }

  start(): this {
    this.schedule(0);
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.lease.release().catch(() => undefined);
  }

  /** One pass, if this process holds the lease: the alerts it raised. */
  async pass(): Promise<Alert[]> {
    if (!(await this.lease.acquire())) return [];
    const now = this.now();
    const raised: Alert[] = [];
    for (const device of await this.candidates()) {
      const periodS = this.period(device);
      if (periodS === undefined || device.account_id === null) continue;
      const silentMs = now - device.lastseen;
      if (silentMs <= periodS * 1000 * (1 + this.settings.tolerance)) continue;
      const alert = await this.db.transaction().execute(async (trx) => {
        const created = await AlertsRepository.raise(trx, {
          accountId: device.account_id!,
          moduleSerial: device.module_serial,
          deviceId: device.id,
          kind: 'lost_contact',
          message: `no uplink for ${Math.round(silentMs / 60_000)} min; expected every ${Math.round(periodS / 60)} min`,
          at: now,
        });
        if (created) {
          await trx.updateTable('devices').set({ network: 'OFF', lost_contact: 1 }).where('id', '=', device.id).execute();
          await enqueueAlertDeliveries(trx, [created]);
          await publish(trx, 'alerts', `${created.id} ${created.moduleSerial}`);
        }
        return created;
      });
      if (alert) raised.push(alert);
    }
    if (raised.length > 0) {
      this.log.info({ raised: raised.length }, 'watchdog raised lost-contact alerts');
      this.onRaised(raised);
    }
    return raised;
  }

  /** Keep-alive interval first (0 means the device does not send them), then the module's, then its apps', then the default. */
  private period(device: Candidate): number | undefined {
    for (const value of [device.period_s, device.module_period_s, device.app_period_s, this.settings.defaultPeriodS]) {
      if (value !== null && value !== undefined && value > 0) return value;
    }
    return undefined;
  }

  /** Watched devices (by their own flag or their module's), heard at least once, not already lost. */
  private candidates(): Promise<Candidate[]> {
    return this.db
      .selectFrom('devices as d')
      .innerJoin('modules as m', 'm.serial', 'd.module_serial')
      .innerJoin('devices as md', (join) => join.onRef('md.module_serial', '=', 'd.module_serial').on('md.idx', '=', 0))
      .select((eb) => [
        'd.id',
        'd.module_serial',
        'm.account_id',
        'd.lastseen',
        'd.period_s',
        'm.watch_period_s as module_period_s',
        eb
          .selectFrom('app_modules as am')
          .innerJoin('apps as a', 'a.id', 'am.app_id')
          .select((inner) => inner.fn.min('a.watch_period_s').as('p'))
          .whereRef('am.module_serial', '=', 'd.module_serial')
          .as('app_period_s'),
      ])
      .where((eb) => eb.or([eb('d.watched', '=', 1), eb('md.watched', '=', 1)]))
      .where('d.lastseen', 'is not', null)
      .where('m.account_id', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('alerts').select('alerts.id').whereRef('alerts.device_id', '=', 'd.id').where('alerts.kind', '=', 'lost_contact').where('alerts.ended_at', 'is', null))),
      )
      .execute() as Promise<Candidate[]>;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(() => undefined)
        .catch((error: unknown) => this.log.error({ err: error }, 'watchdog pass failed; trying again next time'))
        .finally(() => {
          this.running = undefined;
          this.schedule(this.settings.intervalMs);
        });
    }, ms);
    this.timer.unref();
  }
}
