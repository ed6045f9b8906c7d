import { Radio } from './radio.js';
import { Random } from './random.js';
import { SigfoxSender } from './sigfox-sender.js';
import { SimulatedModule } from './simulated-module.js';
import type { Behaviour, Emission, ModuleSpec } from './simulated-module.js';
import { Tally } from './tally.js';
import type { Summary } from './tally.js';

export type { Summary } from './tally.js';

export interface SimulationOptions {
  /** Base URL of snsr, e.g. http://localhost:8080. */
  url: string;
  /** Path the callbacks go to. */
  path?: string;
  token: string;
  modules: ModuleSpec[];
  /** Uplinks per second, all modules together. */
  rate: number;
  /** Stop after this many seconds (default: when stopped). */
  durationS?: number;
  /** Stop after this many uplinks. */
  uplinks?: number;
  /** Most callbacks in flight at once. */
  concurrency?: number;
  seed?: number;
  behaviour?: Partial<Behaviour>;
  /** false: each uplink heard by one station only, so every callback is a new uplink. */
  duplicates?: boolean;
  /** Called about once a second while running. */
  onProgress?: (summary: Summary) => void;
}

/** What snsr should hold for a module after the run, by the simulator's own account. */
export interface Expectation {
  messages: number;
  losts: number;
}

interface Member {
  module: SimulatedModule;
  radio: Radio;
  busy: boolean;
  expected: Expectation;
  heardOnce: boolean;
  lostSinceHeard: number;
  /** The last new frame reached snsr, so a repetition of it is not a new message. */
  lastFrameHeard: boolean;
}

export const DEFAULT_BEHAVIOUR: Behaviour = { lost: 0.01, repeated: 0.03, ack: 0.02 };

const TICK_MS = 5;

/**
 * Feeds snsr realistic Sigfox traffic: modules take turns (one uplink of a module in flight at a
 * time, as on the air), each uplink goes out as one callback per base station that heard it, all at
 * once, and every answer's latency is recorded.
 */
export class Simulation {
  private readonly members: Member[];
  private readonly sender: SigfoxSender;
  private readonly tally = new Tally();
  private readonly concurrency: number;
  private inFlight = 0;
  private next = 0;
  private credit = 0;
  private started = 0;
  private lastTick = 0;
  private ended = 0;
  private stopping = false;
  private finish: (() => void) | undefined;

  constructor(private readonly options: SimulationOptions) {
    const random = new Random(options.seed ?? Date.now());
    const behaviour = { ...DEFAULT_BEHAVIOUR, ...options.behaviour };
    this.members = options.modules.map((spec) => ({
      module: new SimulatedModule(spec, random, behaviour),
      radio: new Radio(random),
      busy: false,
      expected: { messages: 0, losts: 0 },
      heardOnce: false,
      lostSinceHeard: 0,
      lastFrameHeard: false,
    }));
    this.concurrency = options.concurrency ?? 32;
    this.sender = new SigfoxSender(options.url, options.path ?? '/network/sigfox/uplink', options.token, this.concurrency + 3);
  }

  /** Runs until the duration or uplink count is reached, or `stop()`; resolves with the summary. */
  async run(): Promise<Summary> {
    this.started = this.lastTick = performance.now();
    const done = new Promise<void>((resolve) => (this.finish = resolve));
    const ticker = setInterval(() => this.pump(), TICK_MS);
    const progress = this.options.onProgress && setInterval(() => this.options.onProgress?.(this.summary()), 1000);
    const timer = this.options.durationS !== undefined ? setTimeout(() => this.stop(), this.options.durationS * 1000) : undefined;
    this.pump();
    await done;
    clearInterval(ticker);
    if (progress) clearInterval(progress);
    if (timer) clearTimeout(timer);
    this.sender.close();
    return this.summary();
  }

  /** Stops sending; `run()` resolves once the callbacks in flight are answered. */
  stop(): void {
    this.stopping = true;
    this.settle();
  }

  expectations(): Map<string, Expectation> {
    return new Map(this.members.map((m) => [m.module.spec.serial, { ...m.expected }]));
  }

  summary(): Summary {
    const end = this.ended || performance.now();
    return this.tally.summary(this.members.length, Math.max((end - this.started) / 1000, 1e-9));
  }

  private pump(): void {
    const now = performance.now();
    // Credit accrues at the rate; a stall (a slow server) may not be made up by a burst beyond 50 ms worth.
    this.credit = Math.min(this.credit + ((now - this.lastTick) * this.options.rate) / 1000, Math.max(1, this.options.rate * 0.05));
    this.lastTick = now;
    while (!this.stopping && this.credit >= 1 && this.inFlight < this.concurrency) {
      if (this.options.uplinks !== undefined && this.tally.counts.uplinks >= this.options.uplinks) return this.stop();
      const member = this.idleMember();
      if (!member) break;
      this.credit -= 1;
      this.send(member);
    }
  }

  private idleMember(): Member | undefined {
    for (let tried = 0; tried < this.members.length; tried++) {
      const member = this.members[this.next];
      this.next = (this.next + 1) % this.members.length;
      if (!member.busy) return member;
    }
    return undefined;
  }

  private send(member: Member): void {
    let emission: Emission;
    for (emission = member.module.next(); emission.lost; emission = member.module.next()) {
      this.tally.counts.lost++;
      member.lostSinceHeard++;
      if (!emission.repetition) member.lastFrameHeard = false;
    }
    const receptions = member.radio.receive(this.options.duplicates === false);
    const time = Math.floor(Date.now() / 1000);
    const avgSnr = Math.round((receptions.reduce((sum, r) => sum + r.snr, 0) / receptions.length) * 100) / 100;
    const serial = member.module.spec.serial;
    member.busy = true;
    this.tally.counts.uplinks++;
    if (emission.repetition) this.tally.counts.repetitions++;
    this.inFlight += receptions.length;
    const callbacks = receptions.map((reception, i) =>
      this.sender
        .post({ device: serial, time, data: emission.data, seqNumber: emission.seqNumber, ...reception, avgSnr, duplicate: i > 0, ack: i === 0 && emission.ack })
        .then((answer) => this.tally.answer(answer, i === 0 && emission.ack)),
    );
    void Promise.all(callbacks).then((accepted) => {
      this.inFlight -= receptions.length;
      member.busy = false;
      if (accepted.some(Boolean)) this.heard(member, emission);
      else this.unheard(member, emission);
      this.settle();
      this.pump();
    });
  }

  /** Keeps the simulator's account of what snsr must now hold for the module. */
  private heard(member: Member, emission: Emission): void {
    if (member.heardOnce) member.expected.losts += member.lostSinceHeard;
    member.heardOnce = true;
    member.lostSinceHeard = 0;
    if (!emission.repetition || !member.lastFrameHeard) member.expected.messages++;
    member.lastFrameHeard = true;
  }

  /** Every copy was refused: to snsr the emission is as good as lost. */
  private unheard(member: Member, emission: Emission): void {
    member.lostSinceHeard++;
    if (!emission.repetition) member.lastFrameHeard = false;
  }

  private settle(): void {
    if (this.stopping && this.inFlight === 0 && this.finish) {
      this.ended = performance.now();
      this.finish();
      this.finish = undefined;
    }
  }
}
