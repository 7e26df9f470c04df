/** Ids of alerts and inspections. */
import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A 26-character ULID: 48 bits of time then 80 random bits, in Crockford base 32 (sorts by time). */
export function ulid(time: number): string {
  let t = Math.max(0, Math.floor(time));
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(16);
  let randPart = '';
  for (let i = 0; i < 16; i++) randPart += CROCKFORD[rnd[i]! & 31];
  return timePart + randPart;
}
