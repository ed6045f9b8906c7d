// MSB-first bit access for the GPS bit-stream (section 4.3), whose fields ignore byte boundaries.
// Fields reach 48 bits, beyond JavaScript's 32-bit bitwise operators, so everything is plain arithmetic.

/** The unsigned value of `length` (≤ 53) bits starting at absolute bit `start` (bit 0 = MSB of b[0]). */
export function readBits(b: Uint8Array, start: number, length: number): number {
  let v = 0;
  for (let i = start; i < start + length; i++) v = v * 2 + ((b[i >> 3] >> (7 - (i & 7))) & 1);
  return v;
}

/** `length` bits of `value` as a string of 0/1, for explain. */
export function bitString(value: number, length: number): string {
  return value.toString(2).padStart(length, '0');
}

/** Collects fields MSB-first, then zero-pads to whole bytes. */
export class BitWriter {
  private readonly bits: number[] = [];

  write(value: number, length: number): this {
    for (let i = length - 1; i >= 0; i--) this.bits.push(Math.floor(value / 2 ** i) % 2);
    return this;
  }

  /** Appends the bytes written so far (last one zero-padded) to `out`. */
  flushTo(out: number[]): void {
    for (let i = 0; i < this.bits.length; i += 8) {
      let byte = 0;
      for (let j = 0; j < 8; j++) byte = (byte << 1) | (this.bits[i + j] ?? 0);
      out.push(byte);
    }
  }
}
