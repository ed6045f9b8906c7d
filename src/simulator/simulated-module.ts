import { encode, FRAME_TYPES } from '../protocol/udm/index.js';
import type { CustomValues, Frame, FrameTypeName, Protocol } from '../protocol/udm/index.js';
import type { Random } from './random.js';

/** What a simulated module is: its serial, its protocol, and how many children sit behind it. */
export interface ModuleSpec {
  serial: string;
  protocol: Protocol;
  /** 0 for a plain module; 1..15 children for a gateway. */
  children: number;
}

/** One emission on the air. Lost ones advance the counters but reach no base station. */
export interface Emission {
  /** The frame, upper-case hex, exactly as the module encodes it. */
  data: string;
  seqNumber: number;
  lost: boolean;
  /** A scheduled repetition (retry bit set) of the previous frame. */
  repetition: boolean;
  /** The module asks for a downlink. */
  ack: boolean;
}

export interface Behaviour {
  /** Share of emissions that no station hears. */
  lost: number;
  /** Share of frames repeated (retry bit) on the next emission. */
  repeated: number;
  /** Share of uplinks that ask for a downlink. */
  ack: number;
}

interface Child {
  index: number;
  sigfoxId: string;
  registered: boolean;
  connected: boolean;
  rssiOk: boolean;
}

const GATEWAY_CLASS = 0x0101;
const SENSOR_CLASS = 0x0001;
const CHILD_CLASS = 0x0005;
const FULL_MV = 3600;

const round = (value: number, step: number) => Math.round(value / step) * step;

/**
 * A UDM module on the air: it registers (and so do its children, through it), then sends keep-alives,
 * and battery, temperature, connection and RSSI events as its simulated state drifts. Header
 * counters follow the SDK: a stamp per frame type, a 4-bit counter per emission, repetitions included.
 */
export class SimulatedModule {
  private cpt: number;
  private seq: number;
  private readonly stamps = new Array<number>(FRAME_TYPES.length).fill(0);
  private registered = false;
  private readonly children: Child[];
  private voltage: number;
  private temperature = 20;
  private tempState: 'OK' | 'LOW' | 'HIGH' = 'OK';
  private batteryLow = false;
  private switchOn = false;
  private repeat: Frame | undefined;

  constructor(
    readonly spec: ModuleSpec,
    private readonly random: Random,
    private readonly behaviour: Behaviour,
  ) {
    this.cpt = random.int(16);
    this.seq = random.int(4096);
    this.voltage = FULL_MV - random.int(60) * 10;
    this.children = Array.from({ length: spec.children }, (_, i) => ({
      index: i + 1,
      sigfoxId: random.hex(8),
      registered: false,
      connected: true,
      rssiOk: true,
    }));
  }

  /** The next emission: a repetition when one is due, else the frame the module's state calls for. */
  next(): Emission {
    const repetition = this.repeat !== undefined;
    const frame = this.repeat ?? this.newFrame();
    this.repeat = undefined;
    this.cpt = (this.cpt + 1) & 15;
    const header = { ...frame.header, cpt: this.cpt, retry: repetition };
    const data = Buffer.from(encode({ ...frame, header }, this.spec.protocol)).toString('hex').toUpperCase();
    if (!repetition && this.random.chance(this.behaviour.repeated)) this.repeat = frame;
    const seqNumber = this.seq;
    this.seq = (this.seq + 1) % 4096;
    return { data, seqNumber, lost: this.random.chance(this.behaviour.lost), repetition, ack: this.random.chance(this.behaviour.ack) };
  }

  private frame(type: FrameTypeName, code: string, custom: CustomValues, entryId = 0): Frame {
    const stamp = this.stamps[FRAME_TYPES.indexOf(type)];
    this.stamps[FRAME_TYPES.indexOf(type)] = (stamp + 1) & 7;
    return { header: { retry: false, stamp, cpt: 0, entryId, type }, code, custom };
  }

  private newFrame(): Frame {
    if (!this.registered) {
      this.registered = true;
      return this.register(0, this.spec.serial.padStart(8, '0'), this.children.length > 0 ? GATEWAY_CLASS : SENSOR_CLASS);
    }
    const unregistered = this.children.find((child) => !child.registered);
    if (unregistered) {
      unregistered.registered = true;
      return this.register(unregistered.index, unregistered.sigfoxId, CHILD_CLASS);
    }
    return this.temperatureEvent() ?? this.batteryEvent() ?? this.childEvent() ?? this.otherEvent() ?? this.keepalive();
  }

  private register(entryId: number, sigfoxId: string, deviceClass: number): Frame {
    const custom: CustomValues =
      this.spec.protocol === 'UDM23'
        ? { version: '2.3', software_release: 0x0102, device_class: deviceClass, sigfox_id: sigfoxId }
        : { version: '2.2', device_class: deviceClass, sigfox_id: sigfoxId };
    return this.frame('register', 'register', custom, entryId);
  }

  private keepalive(): Frame {
    const child = this.children.length > 0 && this.random.chance(0.3) ? this.random.pick(this.children) : undefined;
    const temperature = this.temperature + (child ? this.random.gauss(1) : 0);
    const custom: CustomValues =
      this.spec.protocol === 'UDM23'
        ? { interval_h: 24, voltage_mv: round(this.voltage, 10), temperature_c: round(temperature, 0.5) }
        : { voltage_mv: round(this.voltage, 10), temperature_c: Math.round(temperature), interval_h: 24 };
    return this.frame('keepalive', this.spec.protocol === 'UDM23' ? 'keepalive_voltage_temp' : 'keepalive', custom, child?.index ?? 0);
  }

  /** A mean-reverting random walk; crossing 5 °C or 35 °C sends a temperature event. */
  private temperatureEvent(): Frame | undefined {
    this.temperature = Math.min(90, Math.max(-25, this.temperature + (20 - this.temperature) * 0.05 + this.random.gauss(4)));
    const state = this.temperature < 5 ? 'LOW' : this.temperature > 35 ? 'HIGH' : 'OK';
    if (state === this.tempState) return undefined;
    this.tempState = state;
    const custom: CustomValues = this.spec.protocol === 'UDM23' ? { temperature_c: round(this.temperature, 0.5) } : {};
    return this.frame('event', `event_temp_${state.toLowerCase()}`, custom);
  }

  /** The battery drains; below 2.5 V the module says so, and a fresh battery brings it back. */
  private batteryEvent(): Frame | undefined {
    this.voltage -= 5 + this.random.int(20);
    if (!this.batteryLow && this.voltage < 2500) {
      this.batteryLow = true;
      return this.frame('event', 'event_battery_low', this.spec.protocol === 'UDM23' ? { voltage_mv: round(this.voltage, 10) } : {});
    }
    if (this.batteryLow && this.voltage < 2300) {
      this.batteryLow = false;
      this.voltage = FULL_MV;
      // UDM22 sends the low byte of the millivolts (section 3.1), UDM23 an encoded voltage.
      return this.frame('event', 'event_battery_ok', this.spec.protocol === 'UDM23' ? { voltage_mv: FULL_MV } : { level: FULL_MV & 0xff });
    }
    return undefined;
  }

  /** A gateway reports a child's LAN link coming and going (section 8). */
  private childEvent(): Frame | undefined {
    if (this.children.length === 0 || !this.random.chance(0.06)) return undefined;
    const child = this.random.pick(this.children);
    if (this.random.chance(0.5)) {
      child.connected = !child.connected;
      return this.frame('event', child.connected ? 'event_connection_ok' : 'event_connection_lost', { child_index: child.index });
    }
    child.rssiOk = !child.rssiOk;
    return this.frame('event', child.rssiOk ? 'event_rssi_ok' : 'event_rssi_low', { child_index: child.index });
  }

  private otherEvent(): Frame | undefined {
    if (this.random.chance(0.01)) return this.frame('event', 'event_boot', { reset_cause: 0x01, custom_cause: 0 });
    if (this.random.chance(0.02)) {
      this.switchOn = !this.switchOn;
      return this.frame('event', this.switchOn ? 'event_switch_on' : 'event_switch_off', { port: 'A', pin: 3 });
    }
    return undefined;
  }
}
