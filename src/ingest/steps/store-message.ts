import { enqueueDeliveries } from '../../delivery/outbox.js';
import { frameTypeString, messageType } from '../../protocol/udm/index.js';
import type { Frame } from '../../protocol/udm/index.js';
import type { DeviceRow } from '../../storage/schema.js';
import type { IngestModule, IngestStore } from '../ingest-store.js';
import type { Uplink } from '../uplink.js';
import type { Contribution } from './apply-state.js';
import { deviceContext } from '../device-context.js';
import type { DateText } from '../device-context.js';

/**
 * Step 8: the message, as history, recents and callbacks show it, and in the same transaction one
 * pending delivery per attached app with a callback URL.
 */
export async function storeMessage(
  store: IngestStore,
  module: IngestModule,
  input: { uplink: Uplink; rawId: number; frame: Frame; device: DeviceRow; contrib: Contribution; dateText: DateText },
): Promise<{ id: number; type: string }> {
  const { uplink, frame, device } = input;
  const type = messageType(frame.code);
  const id = await store.insertMessage({
    module_serial: module.serial,
    device_id: device.id,
    raw_id: input.rawId,
    // The network's reception time, so a replayed callback yields the very same message.
    when_ms: uplink.time * 1000,
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
    custom: JSON.stringify(frame.custom),
    contrib: JSON.stringify(input.contrib),
    ctxt: JSON.stringify(deviceContext(device, input.dateText)),
  });
  await enqueueDeliveries(store.trx, { id, module_serial: module.serial });
  return { id, type };
}
