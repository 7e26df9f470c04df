/** FNV-1a 32-bit hash of a string: turns labels into seeds. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A small seeded PRNG (mulberry32). Models draw every random number from one of these, never Math.random. */
export class Rng {
  private state: number;
  private spare: number | undefined;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  int(min: number, maxInclusive: number): number {
    return min + Math.floor(this.next() * (maxInclusive - min + 1));
  }

  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  /** A standard normal draw (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    if (this.spare !== undefined) {
      const s = this.spare;
      this.spare = undefined;
      return mean + sd * s;
    }
    let u = this.next();
    while (u <= Number.EPSILON) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return mean + sd * r * Math.cos(2 * Math.PI * v);
  }

  /** An independent generator for a named part of the simulation, so adding a device does not shift another's draws. */
  static derive(seed: number, label: string): Rng {
    return new Rng((hashString(label) ^ Math.imul(seed >>> 0, 0x9e3779b1)) >>> 0);
  }
}
