import type { Alert, AlertStore } from './alerts.js';

export const HOUR_MS = 3_600_000;
/** The overview's window: the last 24 hours, as 24 hourly buckets ending with the current hour. */
export const OVERVIEW_HOURS = 24;
/** How many of the latest alerts, lost contacts and failing apps the overview lists. */
export const OVERVIEW_LATEST = 8;

export interface ModuleCounts {
  total: number;
  /** heard from in the last 24 hours */
  seen24h: number;
  neverSeen: number;
  lowBattery: number;
}

/** An app whose callbacks fail: how many deliveries gave up, the newest failure and its error. */
export interface FailingApp {
  id: number;
  name: string;
  failed: number;
  lastFailed: Date | null;
  lastError: string | null;
}

export interface Overview {
  modules: ModuleCounts;
  alerts: { open: number; lostContact: number; latest: Alert[]; lostContactLatest: Alert[] };
  deliveries: { failed: number; apps: FailingApp[] };
  /** Uplinks (raw messages, by network time) per hour, oldest hour first. */
  uplinks: { hour: Date; count: number }[];
}

/** What the overview reads from storage: a few indexed queries, none of them growing with history. */
export interface OverviewStore {
  moduleCounts(accountId: number, seenSince: number): Promise<ModuleCounts>;
  openAlertCounts(accountId: number): Promise<{ open: number; lostContact: number }>;
  failingApps(accountId: number, limit: number): Promise<{ failed: number; apps: FailingApp[] }>;
  /** Raw messages per hour (epoch hour number → count) of the account's modules since `sinceS`. */
  uplinksPerHour(accountId: number, sinceS: number): Promise<Map<number, number>>;
}

/** The developer's landing page in one call: fleet counts, alerts, failing callbacks, uplink rate. */
export class OverviewService {
  constructor(
    private readonly store: OverviewStore,
    private readonly alerts: Pick<AlertStore, 'list'>,
  ) {}

  async of(accountId: number, now = Date.now()): Promise<Overview> {
    const firstHour = Math.floor(now / HOUR_MS) - (OVERVIEW_HOURS - 1);
    const [modules, counts, latest, lostContactLatest, deliveries, perHour] = await Promise.all([
      this.store.moduleCounts(accountId, now - OVERVIEW_HOURS * HOUR_MS),
      this.store.openAlertCounts(accountId),
      this.alerts.list(accountId, { limit: OVERVIEW_LATEST }),
      this.alerts.list(accountId, { limit: OVERVIEW_LATEST, open: true, kind: 'lost_contact' }),
      this.store.failingApps(accountId, OVERVIEW_LATEST),
      this.store.uplinksPerHour(accountId, (firstHour * HOUR_MS) / 1000),
    ]);
    const uplinks = Array.from({ length: OVERVIEW_HOURS }, (_, k) => ({ hour: new Date((firstHour + k) * HOUR_MS), count: perHour.get(firstHour + k) ?? 0 }));
    return { modules, alerts: { ...counts, latest, lostContactLatest }, deliveries, uplinks };
  }
}
