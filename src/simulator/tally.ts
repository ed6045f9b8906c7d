import { LatencyHistogram } from './latency.js';
import type { Answer } from './sigfox-sender.js';

export interface Summary {
  modules: number;
  seconds: number;
  /** Uplinks sent (each as one to three callbacks), lost on purpose, and repetitions among the sent. */
  uplinks: number;
  lost: number;
  repetitions: number;
  callbacks: { sent: number; accepted: number; rejected: number; failed: number };
  /**
   * What snsr answered for the accepted callbacks: how each uplink copy was taken, what new frames
   * became, and for copies that asked for a downlink (answered in Sigfox's form, which does not say
   * whether the copy was new) how many got one.
   */
  outcomes: { new: number; duplicate: number; replay: number; messages: number; repetitions: number; invalid: number; acks: number; downlinks: number };
  callbacksPerSecond: number;
  uplinksPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  /** Distinct rejections (status and message) with their counts. */
  rejections: { status: number; message: string; count: number }[];
}

type Counts = Pick<Summary, 'uplinks' | 'lost' | 'repetitions' | 'callbacks' | 'outcomes'>;

/** Counts what was sent and what snsr answered, and times every answer. */
export class Tally {
  readonly counts: Counts = {
    uplinks: 0,
    lost: 0,
    repetitions: 0,
    callbacks: { sent: 0, accepted: 0, rejected: 0, failed: 0 },
    outcomes: { new: 0, duplicate: 0, replay: 0, messages: 0, repetitions: 0, invalid: 0, acks: 0, downlinks: 0 },
  };
  private readonly latency = new LatencyHistogram();
  private readonly rejections = new Map<string, { status: number; message: string; count: number }>();

  /** One callback's answer; true when snsr accepted it. `ack`: the callback asked for a downlink. */
  answer(answer: Answer, ack: boolean): boolean {
    const { callbacks, outcomes } = this.counts;
    callbacks.sent++;
    this.latency.record(answer.ms);
    if (answer.status === 0) {
      callbacks.failed++;
      this.reject(0, answer.error ?? 'network error');
      return false;
    }
    if (answer.status >= 300) {
      callbacks.rejected++;
      this.reject(answer.status, message(answer.body));
      return false;
    }
    callbacks.accepted++;
    if (ack) {
      outcomes.acks++;
      if (answer.status === 200) outcomes.downlinks++;
      return true;
    }
    const body = parse(answer.body);
    if (body.uplink === 'new' || body.uplink === 'duplicate' || body.uplink === 'replay') outcomes[body.uplink]++;
    if (body.frame === 'message') outcomes.messages++;
    else if (body.frame === 'repetition') outcomes.repetitions++;
    else if (body.frame === 'invalid') outcomes.invalid++;
    return true;
  }

  summary(modules: number, seconds: number): Summary {
    const { uplinks, lost, repetitions, callbacks, outcomes } = this.counts;
    return {
      modules,
      seconds: Math.round(seconds * 100) / 100,
      uplinks,
      lost,
      repetitions,
      callbacks: { ...callbacks },
      outcomes: { ...outcomes },
      callbacksPerSecond: Math.round(callbacks.accepted / seconds),
      uplinksPerSecond: Math.round(uplinks / seconds),
      latencyMs: { p50: this.latency.percentile(50), p99: this.latency.percentile(99), max: this.latency.max },
      rejections: [...this.rejections.values()],
    };
  }

  private reject(status: number, text: string): void {
    const key = `${status} ${text}`;
    const known = this.rejections.get(key);
    if (known) known.count++;
    else if (this.rejections.size < 20) this.rejections.set(key, { status, message: text, count: 1 });
  }
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** An error answer's message, or the start of whatever came back. */
function message(text: string): string {
  const body = parse(text);
  return typeof body.message === 'string' ? body.message : text.slice(0, 200);
}
