import type { CatalogModule, Device } from './types.js';
import { badRequest, notFound } from './errors.js';
import { normalizeSerial } from './modules.js';

/** What an alert is about: the UDM alarm events, and the lost-contact watchdog's own. */
export const ALERT_KINDS = [
  'battery_low',
  'temperature_low',
  'temperature_high',
  'connection_lost',
  'signal_low',
  'tamper',
  'lost_contact',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** An alarm raised on a watched device, and what became of it. */
export interface Alert {
  id: number;
  accountId: number;
  moduleSerial: string;
  deviceId: number;
  deviceSerial: string;
  /** the name the owner gave the device, as it is now (null: unnamed) */
  deviceName: string | null;
  kind: AlertKind;
  message: string;
  raised: Date;
  /** the message whose frame raised it; null for the watchdog's lost-contact alerts */
  messageId: number | null;
  /** when the matching "OK" event (or the next uplink, for lost contact) ended it */
  ended: Date | null;
  endMessage: string | null;
  acked: Date | null;
}

export interface AlertPage {
  limit: number;
  module?: string;
  before?: number;
  /** only alerts with a greater id (a live stream's replay) */
  after?: number;
  open?: boolean;
  kind?: AlertKind;
}

export interface AlertQuery {
  limit?: number;
  sn?: string;
  before?: number;
  open?: boolean;
}

/** What the service needs from storage. */
export interface AlertStore {
  list(accountId: number, page: AlertPage): Promise<Alert[]>;
  byId(id: number): Promise<Alert | undefined>;
  acknowledge(deviceId: number, alertId?: number): Promise<number>;
  setModulePeriod(serial: string, periodS: number | null): Promise<void>;
  setAppPeriod(appId: number, periodS: number | null): Promise<void>;
}

export interface AlertLookups {
  moduleBySerial(serial: string): Promise<CatalogModule | undefined>;
  deviceBySerial(serial: string): Promise<Device | undefined>;
  appOwned(accountId: number, appId: number): Promise<boolean>;
}

/** Bounds of an expected period: a minute to a year. */
export const MIN_PERIOD_S = 60;
export const MAX_PERIOD_S = 31_536_000;

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;

/** Listing and acknowledging the alerts of the caller's modules; anything else is a 404. */
export class AlertService {
  constructor(
    private readonly alerts: AlertStore,
    private readonly lookups: AlertLookups,
  ) {}

  async list(accountId: number, query: AlertQuery = {}): Promise<Alert[]> {
    const limit = query.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer from 1 to ${MAX_LIMIT}`);
    const page: AlertPage = { limit, ...(query.before !== undefined && { before: query.before }), ...(query.open && { open: true }) };
    if (query.sn !== undefined) page.module = (await this.ownedModule(accountId, query.sn)).serial;
    return this.alerts.list(accountId, page);
  }

  /**
   * Acknowledges one alert (`id`) or every alert of a device (`sn`: the module's serial or a child's
   * `<serial>/<index>`); returns the device and how many alerts were acknowledged.
   */
  async acknowledge(accountId: number, target: { sn?: string; id?: number }): Promise<{ device: Device; acknowledged: number }> {
    if (target.id !== undefined) {
      const alert = await this.alerts.byId(target.id);
      if (!alert || alert.accountId !== accountId) throw notFound(`alert ${target.id} not found`);
      const device = await this.ownedDevice(accountId, alert.deviceSerial, `alert ${target.id} not found`);
      return { device, acknowledged: await this.alerts.acknowledge(device.id, alert.id) };
    }
    if (target.sn === undefined) throw badRequest('sn (a device serial) or id (an alert id) is required');
    const device = await this.ownedDevice(accountId, target.sn, `device ${normalizeSerial(target.sn)} not found`);
    return { device, acknowledged: await this.alerts.acknowledge(device.id) };
  }

  /**
   * The lost-contact watchdog's expected period (seconds) for watched devices of a module (`sn`) or
   * of every module attached to an app (`app`) whose keep-alives do not announce one; null clears it.
   */
  async setPeriod(accountId: number, target: { sn?: string; app?: number }, periodS: number | null): Promise<void> {
    if (periodS !== null && (!Number.isInteger(periodS) || periodS < MIN_PERIOD_S || periodS > MAX_PERIOD_S)) {
      throw badRequest(`period must be a number of seconds from ${MIN_PERIOD_S} to ${MAX_PERIOD_S}, or empty to clear it`);
    }
    if (target.sn !== undefined) {
      await this.alerts.setModulePeriod((await this.ownedModule(accountId, target.sn)).serial, periodS);
    } else if (target.app !== undefined) {
      if (!(await this.lookups.appOwned(accountId, target.app))) throw notFound(`app ${target.app} not found`);
      await this.alerts.setAppPeriod(target.app, periodS);
    } else throw badRequest('sn (a module serial) or app (an app id) is required');
  }

  /** Operator (CLI): any device's alerts. */
  async acknowledgeAny(sn: string): Promise<{ device: Device; acknowledged: number }> {
    const device = await this.lookups.deviceBySerial(normalizeSerial(sn));
    if (!device) throw notFound(`device ${normalizeSerial(sn)} not found`);
    return { device, acknowledged: await this.alerts.acknowledge(device.id) };
  }

  /** Operator (CLI): the alerts of the account holding the module. */
  async listAny(sn: string, query: Omit<AlertQuery, 'sn'> = {}): Promise<Alert[]> {
    const module = await this.lookups.moduleBySerial(normalizeSerial(sn));
    if (!module || module.accountId === null) throw notFound(`module ${normalizeSerial(sn)} not found or not registered`);
    return this.list(module.accountId, { ...query, sn: module.serial });
  }

  private async ownedModule(accountId: number, sn: string): Promise<CatalogModule> {
    const module = await this.lookups.moduleBySerial(normalizeSerial(sn));
    if (!module || module.accountId !== accountId) throw notFound(`module ${normalizeSerial(sn)} not found`);
    return module;
  }

  private async ownedDevice(accountId: number, sn: string, missing: string): Promise<Device> {
    const device = await this.lookups.deviceBySerial(normalizeSerial(sn));
    const module = device && (await this.lookups.moduleBySerial(device.moduleSerial));
    if (!device || module?.accountId !== accountId) throw notFound(missing);
    return device;
  }
}
