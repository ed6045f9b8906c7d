import { Type } from 'typebox';
import type { Overview } from '../../domain/overview.js';
import { presentAlert } from '../../wire/alert.js';
import { AlertSchema } from './alerts.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const EpochMsOrNull = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

export const OverviewSchema = Type.Object({
  generated: Type.Integer({ description: 'when the figures were read, epoch ms' }),
  modules: Type.Object({
    total: Count('modules registered to the account'),
    seen_24h: Count('of those, heard from in the last 24 hours'),
    never_seen: Count('never heard from'),
    low_battery: Count('battery low'),
  }),
  alerts: Type.Object({
    open: Count('alerts whose condition has not ended'),
    lost_contact: Count('of those, lost contact (the watchdog’s)'),
    latest: Type.Array(AlertSchema, { description: 'the newest alerts, open or ended, newest first (at most 8)' }),
    lost_contact_latest: Type.Array(AlertSchema, { description: 'the newest open lost-contact alerts (at most 8)' }),
  }),
  deliveries: Type.Object({
    failed: Count('callback deliveries that gave up, over every app'),
    apps: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        failed: Count('failed deliveries of the app'),
        last_failed: EpochMsOrNull('the newest failure, epoch ms'),
        last_error: Type.Union([Type.String(), Type.Null()], { description: 'its error' }),
      }),
      { description: 'apps with failed deliveries, newest failure first (at most 8)' },
    ),
  }),
  uplinks: Type.Array(Type.Object({ hour: Type.Integer({ description: 'start of the hour, epoch ms' }), count: Count('uplinks heard (network time) in that hour') }), {
    description: 'the last 24 hours, oldest first, the current hour last',
  }),
});

export function presentOverview(overview: Overview, generated: number) {
  const { modules, alerts, deliveries } = overview;
  return {
    generated,
    modules: { total: modules.total, seen_24h: modules.seen24h, never_seen: modules.neverSeen, low_battery: modules.lowBattery },
    alerts: {
      open: alerts.open,
      lost_contact: alerts.lostContact,
      latest: alerts.latest.map(presentAlert),
      lost_contact_latest: alerts.lostContactLatest.map(presentAlert),
    },
    deliveries: {
      failed: deliveries.failed,
      apps: deliveries.apps.map((app) => ({ id: app.id, name: app.name, failed: app.failed, last_failed: app.lastFailed?.getTime() ?? null, last_error: app.lastError })),
    },
    uplinks: overview.uplinks.map((bucket) => ({ hour: bucket.hour.getTime(), count: bucket.count })),
  };
}
