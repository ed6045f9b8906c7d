import type { ModuleService } from '../domain/modules.js';
import { badRequest, conflict } from '../domain/errors.js';
import type { IngestService } from '../ingest/ingest-service.js';
import { encode } from '../protocol/udm/index.js';
import type { MessagesRepository } from '../storage/messages-repository.js';
import { presentMessage } from '../wire/message.js';
import { portalFrame, SIMULATION_TYPES, simulationType } from './portal-frames.js';

export interface PortalSimulation {
  type: string | undefined;
  deviceserial: string | undefined;
  latitude?: number | undefined;
  longitude?: number | undefined;
}

function coordinate(name: 'latitude' | 'longitude', value: number | undefined, limit: number): number {
  if (value === undefined) return 0;
  if (!Number.isFinite(value) || Math.abs(value) > limit) throw badRequest(`${name} must be a number of degrees between -${limit} and ${limit}, got ${value}`);
  return value;
}

/**
 * The original portal's simulator: a simulation object in, the UDM frame of its type for a module
 * the caller holds, run through ingestion as a simulated uplink, and the message it produced out.
 */
export class PortalSimulator {
  /** Frames simulated per module by this process: the next frame's counters. */
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly modules: ModuleService,
    private readonly ingest: IngestService,
    private readonly messages: MessagesRepository,
    private readonly random: () => number = Math.random,
  ) {}

  async simulate(accountId: number, simulation: PortalSimulation): Promise<ReturnType<typeof presentMessage>> {
    if (simulation.type === undefined) throw badRequest(`type is required: one of ${SIMULATION_TYPES.join(', ')}`);
    const type = simulationType(simulation.type);
    if (!type) throw badRequest(`type must be one of ${SIMULATION_TYPES.join(', ')}, got ${JSON.stringify(simulation.type)}`);
    if (simulation.deviceserial === undefined || simulation.deviceserial.trim() === '') throw badRequest('deviceserial is required: the serial of one of your modules');
    const latitude = coordinate('latitude', simulation.latitude, 90);
    const longitude = coordinate('longitude', simulation.longitude, 180);
    const { module } = await this.modules.owned(accountId, simulation.deviceserial);

    const count = this.counts.get(module.serial) ?? 0;
    this.counts.set(module.serial, count + 1);
    const frame = portalFrame(type, { protocol: module.protocol, latitude, longitude, random: this.random }, count);
    const data = Buffer.from(encode(frame, module.protocol)).toString('hex').toUpperCase();
    const result = await this.ingest.receive({
      device: module.serial,
      time: Math.floor(Date.now() / 1000),
      // The frame's own counter wraps after 16: the sequence number keeps a burst of simulations in
      // one second apart (uplink identity); simulated uplinks move no counter, so it counts no loss.
      seqNumber: count % 4096,
      data,
      lat: latitude,
      lng: longitude,
      simulated: true,
    });
    const row = result.messageId === undefined ? undefined : await this.messages.byId(result.messageId);
    // Only the same sequence number in the same second (uplink identity) makes no message.
    if (!row || result.device === undefined) throw conflict(`the simulated ${type} uplink of ${module.serial} (${data}) was just received: send it again`);
    return presentMessage(row, result.device);
  }
}
