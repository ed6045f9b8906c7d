import { frameTypeString, messageType } from '../../protocol/udm/index.js';
import type { Frame } from '../../protocol/udm/index.js';
import type { DeviceRow } from '../../storage/schema.js';
import type { IngestModule, IngestStore, ModuleChanges } from '../ingest-store.js';
import type { Uplink } from '../uplink.js';
import type { Contribution } from './apply-state.js';
import { deviceContext } from '../device-context.js';
import { messageBody } from '../../wire/message.js';
import type { DateText } from '../device-context.js';

/**
 * A message's `when`: the time snsr received it (epoch ms), strictly after the module's previous
 * message (a tie, or a clock that stepped back, moves it forward by 1 ms). Pollers read `after` the
 * newest `when` they saw, so a message the network delivers late still shows up after it.
 */
export function receptionTime(module: IngestModule, now: number): number {
  return module.lastWhenMs !== null && now <= module.lastWhenMs ? module.lastWhenMs + 1 : now;
}

/**
 * Step 8: the message, as history, recents and callbacks show it, with what the uplink changed of
 * its module (`changes`, written with it: the message's `when` is part of them), and in the same
 * transaction one pending delivery per attached app with a callback URL.
 */
export async function storeMessage(
  store: IngestStore,
  module: IngestModule,
  input: { uplink: Uplink; rawId: number; whenMs: number; frame: Frame; device: DeviceRow; contrib: Contribution; dateText: DateText; changes: ModuleChanges },
): Promise<{ id: number; type: string }> {
  const { uplink, frame, device } = input;
  const type = messageType(frame.code);
  const message = {
    module_serial: module.serial,
    device_id: device.id,
    raw_id: input.rawId,
    when_ms: input.whenMs,
    time_s: uplink.time,
    type,
    station: uplink.station?.toUpperCase() ?? '',
    lvl: uplink.rssi ?? null,
    frame: uplink.data.toUpperCase(),
    frame_type: frameTypeString(frame.header.type),
    code: frame.code,
    entry_id: frame.header.entryId,
    stamp: frame.header.stamp,
    cpt: frame.header.cpt,
    retry: frame.header.retry ? 1 : 0,
    custom: JSON.stringify(uplink.simulated ? { ...frame.custom, simulated: true } : frame.custom),
    contrib: JSON.stringify(input.contrib),
    ctxt: JSON.stringify(deviceContext(device, input.dateText)),
  };
  // Its wire form, serialized once here so history reads send it as stored.
  const id = await store.insertMessage({ ...message, body: messageBody(message, device.serial) }, { ...input.changes, lastWhenMs: input.whenMs });
  // Without an attached app that has a callback URL when the module was locked, there is nothing to
  // queue (attaching one waits on that lock: app_modules' foreign key to the module row).
  if (module.callbacks) await store.enqueueDeliveries({ id, module_serial: module.serial });
  return { id, type };
}
