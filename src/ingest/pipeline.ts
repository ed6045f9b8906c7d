import type { Logger } from 'pino';
import type { IngestModule, IngestStore } from './ingest-store.js';
import { statusUpdate } from '../protocol/udm/index.js';
import type { Frame } from '../protocol/udm/index.js';
import type { DateText } from './device-context.js';
import type { IngestResult, Uplink } from './uplink.js';
import { resolveModule } from './steps/resolve-module.js';
import { storeRaw } from './steps/store-raw.js';
import { decodeFrame } from './steps/decode-frame.js';
import { updateModule } from './steps/update-module.js';
import { detectRepetition, RECENT_MESSAGES } from './steps/detect-repetition.js';
import { concernedEntry, resolveDevice } from './steps/resolve-device.js';
import { applyDeviceState } from './steps/apply-state.js';
import { receptionTime, storeMessage } from './steps/store-message.js';
import { raiseAlerts } from './steps/raise-alerts.js';
import { announceMessage } from './steps/announce-message.js';

export interface PipelineEnv {
  log: Logger;
  dateText: DateText;
  now: () => number;
}

/** Sends ahead the lookups of repetition detection (a retried frame) and of a child device. */
function lookAhead(store: IngestStore, module: IngestModule, frame: Frame): void {
  const entry = concernedEntry(frame, statusUpdate(frame)).entry;
  store.lookAhead(module.serial, { ...(frame.header.retry && { recent: RECENT_MESSAGES }), ...(entry !== 0 && { child: entry }) });
}

/**
 * One uplink, start to finish, on one transaction (`store`). Each step is a small function in
 * `steps/`; a step that rejects the uplink does so before anything is written, so a rejected uplink
 * leaves no trace even when it shares a transaction with others.
 */
export async function runPipeline(store: IngestStore, uplink: Uplink, env: PipelineEnv): Promise<IngestResult> {
  const module = await resolveModule(store, uplink);
  const now = env.now();
  const decoded = decodeFrame(module, uplink.data);
  // What later steps will look up goes with the raw message's insert where statements are batched.
  if (decoded.ok) lookAhead(store, module, decoded.frame);
  const raw = await storeRaw(store, module, uplink, now);
  const result: IngestResult = {
    uplink: raw.outcome,
    rawId: raw.rawId,
    module: module.serial,
    ...(uplink.ack && { downlink: module.device.bidirval }),
  };
  // Another station's copy, or a replay: decoded, counted and delivered already.
  if (raw.outcome !== 'new') return result;

  const changes = await updateModule(store, module, uplink, decoded.ok ? decoded.frame : undefined, decoded.ok ? decoded.switchTo : undefined);
  if (!decoded.ok) {
    await store.updateModule(module.serial, changes);
    env.log.warn({ module: module.serial, data: uplink.data, seqNumber: uplink.seqNumber, reason: decoded.reason }, 'invalid UDM frame kept in raw history only');
    return { ...result, frame: 'invalid', reason: decoded.reason };
  }
  const { frame } = decoded;
  if (await detectRepetition(store, module, frame, uplink.data)) {
    await store.updateModule(module.serial, changes);
    return { ...result, frame: 'repetition' };
  }

  const whenMs = receptionTime(module, now);
  const concerned = await resolveDevice(store, module, frame);
  const { device, contrib } = await applyDeviceState(store, module, frame, concerned, whenMs, changes.losts?.delta);
  const message = await storeMessage(store, module, { uplink, rawId: raw.rawId, whenMs, frame, device, contrib, dateText: env.dateText, changes });
  const alerts = await raiseAlerts(store, module, frame, device, { id: message.id, whenMs });
  await announceMessage(store, { id: message.id, module: module.serial });
  return { ...result, frame: 'message', device: device.serial, type: message.type, messageId: message.id, alerts };
}
