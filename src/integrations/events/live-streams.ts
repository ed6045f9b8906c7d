import type { Gauge } from 'prom-client';
import type { StreamEventsRepository } from '../../storage/stream-events-repository.js';
import type { EventHub } from './event-hub.js';

/** What serving a live stream needs from the process: the hub, the replay reads, the heartbeat, the open-streams gauge. */
export class LiveStreams {
  constructor(
    readonly hub: EventHub,
    readonly events: StreamEventsRepository,
    private readonly heartbeatMs: number,
    private readonly open: Gauge,
  ) {}

  options() {
    return { hub: this.hub, events: this.events, heartbeatMs: this.heartbeatMs, onOpen: () => this.open.inc(), onClose: () => this.open.dec() };
  }
}
