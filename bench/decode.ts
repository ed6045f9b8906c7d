// Decode throughput on one core: hex event frames (the common uplink), the bare cost of
// Buffer.from(hex, 'hex') measured in the same run as a yardstick, and a mix of every frame type.
import { decode, encode, type Protocol } from '../src/protocol/udm/index.js';

const ROUNDS = 7;
const ROUND_MS = 250;

/** 512 distinct event frames: every UDM23 event code with plausible data, varied header counters. */
function eventFrames(): string[] {
  const frames: string[] = [];
  const codes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 128, 140, 164];
  for (let i = 0; i < 512; i++) {
    const code = codes[i % codes.length];
    const data = code === 9 ? [i & 0xff, 0] : code >= 12 ? [i & 0xff, 0x42] : [(i * 7) & 0xff];
    frames.push(Buffer.from([i & 0xff, (i >> 4) & 0xf0, code, ...data]).toString('hex'));
  }
  return frames;
}

/** One representative of every frame type and variant, valid under UDM23. */
const MIXED = [
  '00000046', '25000632', '47000202', '0000090100', '00000A23', '000080CAFE',
  '00010000D33601020304', '000103001234', '00010100202AC5B3FC801118', '0001014071A8E310', '000102CAFE',
  '001223010200050001ABCD', '000723000100000000C0DE', '020300189167', '0003031800',
  '00050048454C4C4F', '0004DEADBEEF', '0006ABCD',
];

let sink = 0; // consumed results, so the JIT cannot drop the work

function rate(inputs: readonly string[], op: (hex: string) => number): number {
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ROUND_MS) {
    for (let i = 0; i < inputs.length; i++) sink += op(inputs[i]);
    ops += inputs.length;
    elapsed = performance.now() - start;
  }
  return (ops / elapsed) * 1000;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function suite(inputs: readonly string[], protocol: Protocol) {
  const ops = {
    decode: (hex: string) => {
      const r = decode(hex, protocol);
      return r.ok ? r.frame.header.cpt : 1;
    },
    buffer: (hex: string) => Buffer.from(hex, 'hex').length,
  };
  for (const op of Object.values(ops)) rate(inputs, op); // warm-up: let the JIT settle
  const runs = { decode: [] as number[], buffer: [] as number[] };
  // Interleaved rounds, so both figures see the same machine load.
  for (let r = 0; r < ROUNDS; r++) {
    runs.decode.push(rate(inputs, ops.decode));
    runs.buffer.push(rate(inputs, ops.buffer));
  }
  return { decode: median(runs.decode), buffer: median(runs.buffer) };
}

const fmt = (n: number): string => `${(n / 1e6).toFixed(2)} M/s`;
const row = (cells: string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(20) : c.padStart(13))).join('');

export async function run(): Promise<void> {
  // Sanity: the inputs decode, so the bench measures the success path.
  const events = eventFrames();
  for (const hex of [...events, ...MIXED]) {
    const r = decode(hex, 'UDM23');
    if (!r.ok) throw new Error(`bench input ${hex} does not decode: ${r.reason}`);
    encode(r.frame, 'UDM23');
  }
  const ev = suite(events, 'UDM23');
  const mixed = suite(MIXED, 'UDM23');
  console.log(`node ${process.version}, one core, median of ${ROUNDS} rounds × ${ROUND_MS} ms`);
  console.log(row(['hex frames', 'decode', 'Buffer.from', 'ratio']));
  for (const [name, s] of [[`event (${events.length})`, ev], [`mixed types (${MIXED.length})`, mixed]] as const) {
    console.log(row([name, fmt(s.decode), fmt(s.buffer), `${(s.decode / s.buffer).toFixed(2)}×`]));
  }
  console.log('ratio = decode rate / Buffer.from rate: above 1, a full decode costs less than bare hex conversion');
  if (sink === 0.5) console.log(sink);
}
