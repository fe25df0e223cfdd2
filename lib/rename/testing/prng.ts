/** A small seeded PRNG (mulberry32) for property tests: the same seed gives the same cases. */
export class Prng {
  private state: number;
  constructor(readonly seed: number) {
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
  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }
  bool(pTrue = 0.5): boolean {
    return this.next() < pTrue;
  }
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }
  /** n distinct-ish picks (duplicates removed). */
  some<T>(items: readonly T[], max: number): T[] {
    const n = this.int(max + 1);
    return [...new Set(Array.from({ length: n }, () => this.pick(items)))];
  }
}
