import type { Frame } from '../../protocol/udm/index.js';
import type { Alert } from '../../domain/alerts.js';
import { alarmEffect } from '../../monitoring/alarms.js';
import { AlertsRepository } from '../../storage/alerts-repository.js';
import { enqueueAlertDeliveries } from '../../delivery/outbox.js';
import { publish } from '../../storage/notifications.js';
import type { NewAlert } from '../../storage/alerts-repository.js';
import { endAlerts, enqueueAlerts, raiseAlerts as raiseBatched } from '../batched-alerts.js';
import type { AlertsEnd } from '../batched-alerts.js';
import type { DeviceRow } from '../../storage/schema.js';
import type { IngestModule, IngestStore } from '../ingest-store.js';

/** What the step did: alerts raised and alerts ended, for notifications and metrics. */
export interface AlertChanges {
  raised: Alert[];
  ended: Alert[];
}

const NONE: AlertChanges = { raised: [], ended: [] };

/**
 * Step 9: alerts of watched devices. A device is watched when its own flag or its module's is set.
 * An alarm event raises an alert on the device it concerns (at most one open per kind), its "OK"
 * event ends it, and any uplink ends a lost-contact alert on the devices it shows alive (a keep-alive's
 * announced interval, the watchdog's expected period, is written with the device state). Devices
 * nobody watches cost nothing here.
 */
export async function raiseAlerts(
  store: IngestStore,
  module: IngestModule,
  frame: Frame,
  device: DeviceRow,
  message: { id: number; whenMs: number },
): Promise<AlertChanges> {
  const heard = device.idx === frame.header.entryId ? device : module.device;
  const moduleWatched = module.device.watched === 1;
  if (!moduleWatched && device.watched !== 1) return NONE;
  return announce(store, module, await watchedDevice(store, module, frame, device, heard, message));
}

async function watchedDevice(
  store: IngestStore,
  module: IngestModule,
  frame: Frame,
  device: DeviceRow,
  heard: DeviceRow,
  message: { id: number; whenMs: number },
): Promise<AlertChanges> {
  const at = message.whenMs;
  const moduleWatched = module.device.watched === 1;
  const changes: AlertChanges = { raised: [], ended: [] };
  // Whoever sent this uplink is in contact again. The watchdog flags a device when it raises lost
  // contact, so only a flagged device has one to end: every other uplink skips the write.
  for (const alive of new Set([module.device, heard])) {
    if (alive.lost_contact !== 1 || (!moduleWatched && alive.watched !== 1)) continue;
    const ended = await end(store, { deviceId: alive.id, kinds: ['lost_contact'], text: 'uplink received', at });
    await store.trx.updateTable('devices').set({ network: 'ON', lost_contact: 0 }).where('id', '=', alive.id).execute();
    changes.ended.push(...ended);
  }
  const effect = alarmEffect(frame);
  if (effect === undefined) return changes;
  if ('end' in effect) {
    changes.ended.push(...(await end(store, { deviceId: device.id, kinds: effect.end, text: effect.text, at })));
    return changes;
  }
  if (module.accountId === null) return changes;
  const raised = await raise(store, {
    accountId: module.accountId,
    moduleSerial: module.serial,
    deviceId: device.id,
    kind: effect.raise,
    message: effect.text,
    at,
    messageId: message.id,
  });
  if (raised) changes.raised.push(raised);
  return changes;
}

/**
 * Queues the raised alerts' callbacks on the same transaction, and tells live streams in every
 * process, once committed; they read the alert themselves.
 */
async function announce(store: IngestStore, module: IngestModule, changes: AlertChanges): Promise<AlertChanges> {
  // Without an app that has a callback URL there is nothing to queue (the lock read it).
  if (module.callbacks && changes.raised.length > 0) {
    await store.inRound(enqueueAlerts, changes.raised, () => enqueueAlertDeliveries(store.trx, changes.raised).then(() => undefined));
  }
  for (const alert of [...changes.raised, ...changes.ended]) await publish(store.trx, 'alerts', `${alert.id} ${alert.moduleSerial}`);
  return changes;
}

// One statement per round for every uplink of it that raises or ends an alert (PostgreSQL).
const raise = (store: IngestStore, alert: NewAlert) => store.inRound(raiseBatched, alert, () => AlertsRepository.raise(store.trx, alert));
const end = (store: IngestStore, e: AlertsEnd) => store.inRound(endAlerts, e, () => AlertsRepository.end(store.trx, e.deviceId, e.kinds, e.text, e.at));
