import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../gateway/src/loginThrottle.ts';

describe('login throttle', () => {
  it('gives a few free failures, then shuts the key for a doubling time up to a maximum', () => {
    let now = 0;
    const t = new LoginThrottle({ free: 3, baseMs: 1000, maxMs: 8000, forgetMs: 60_000 }, () => now);
    expect([t.failed('u'), t.failed('u'), t.failed('u')]).toEqual([0, 0, 0]);
    expect(t.wait('u')).toBe(0);
    expect(t.failed('u')).toBe(1000);
    expect(t.wait('u')).toBe(1000);
    now += 1000;
    expect(t.wait('u')).toBe(0);
    expect([t.failed('u'), t.failed('u'), t.failed('u'), t.failed('u')]).toEqual([2000, 4000, 8000, 8000]);
    // Another key is not affected; a success opens the key; a long quiet time forgets it.
    expect(t.wait('v')).toBe(0);
    t.succeeded('u');
    expect(t.wait('u')).toBe(0);
    for (let i = 0; i < 4; i++) t.failed('w');
    now += 61_000;
    expect(t.wait('w')).toBe(0);
    expect(t.failed('w')).toBe(0);
  });

  it('remembers a bounded number of keys', () => {
    const t = new LoginThrottle({ free: 0, baseMs: 1000, maxMs: 1000, forgetMs: 60_000 });
    for (let i = 0; i < 20_000; i++) t.failed(`k${i}`);
    expect(t.wait('k0')).toBe(0);
    expect(t.wait('k19999')).toBeGreaterThan(0);
  });
});
