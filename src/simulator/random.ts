/**
 * A small seeded generator (mulberry32): the same `--seed` replays the same traffic, which makes a
 * load test repeatable and a simulator test deterministic.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Uniform in [min, max). */
  between(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  /** Roughly normal (sum of uniforms), mean 0, standard deviation `sd`. */
  gauss(sd: number): number {
    return (this.next() + this.next() + this.next() + this.next() - 2) * sd * Math.sqrt(3);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  hex(digits: number): string {
    let out = '';
    for (let i = 0; i < digits; i++) out += this.int(16).toString(16).toUpperCase();
    return out;
  }
}
