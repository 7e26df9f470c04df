import { describe, expect, it } from 'vitest';
import { LoginGuard, Throttled } from '../gateway/src/loginGuard.ts';

const THROTTLE = { free: 3, baseMs: 1000, maxMs: 60_000, forgetMs: 60_000 };

/** A password check that takes a few event-loop turns and records how many run at once. */
function checker(right: string) {
  const o = { running: 0, most: 0, performed: 0 };
  const check = (password: string) => async () => {
    o.running++;
    o.performed++;
    o.most = Math.max(o.most, o.running);
    await new Promise((r) => setTimeout(r, 5));
    o.running--;
    if (password !== right) throw new Error('wrong password');
    return 'in';
  };
  return { o, check };
}

describe('login guard', () => {
  it('counts each attempt before its check: a burst costs the free failures and one, a few at a time', async () => {
    let now = 0;
    const guard = new LoginGuard({ names: THROTTLE, addresses: THROTTLE, now: () => now });
    const { o, check } = checker('right');
    const who = { address: '10.0.0.1', name: 'rg-1' };
    const wrong = Array.from({ length: 100 }, (_, i) => guard.attempt(who, check(`w${i}`)));
    const right = guard.attempt(who, check('right'));
    const outcomes = await Promise.allSettled([...wrong, right]);
    expect(o.performed).toBe(4);
    expect(o.most).toBeLessThanOrEqual(2);
    const throttled = outcomes.filter((r) => r.status === 'rejected' && r.reason instanceof Throttled);
    expect(throttled).toHaveLength(97);
    expect(outcomes.at(-1)).toMatchObject({ status: 'rejected', reason: expect.any(Throttled) });
    expect(guard.busyKeys()).toBe(0);
    // Once the shut time has passed, the right password is checked and gets in.
    now += 1000;
    await expect(guard.attempt(who, check('right'))).resolves.toBe('in');
    expect(o.performed).toBe(5);
  });

  it('a success takes its failure back: the name opens, the address keeps only the real failures', async () => {
    let now = 0;
    const guard = new LoginGuard({ names: THROTTLE, addresses: THROTTLE, now: () => now });
    const { check } = checker('right');
    // Two wrong for one name, then many right ones from the same address under other names, one at a time.
    for (let i = 0; i < 2; i++)
      await expect(guard.attempt({ address: 'a', name: 'x' }, check('bad'))).rejects.toThrow('wrong');
    for (let i = 0; i < 20; i++)
      await expect(guard.attempt({ address: 'a', name: `dev-${i}` }, check('right'))).resolves.toBe('in');
    // The address has its 2 real failures: one more free, then shut.
    await expect(guard.attempt({ address: 'a', name: 'y' }, check('bad'))).rejects.toThrow('wrong');
    const e = await guard.attempt({ address: 'a', name: 'z' }, check('bad')).catch((x: unknown) => x);
    expect(e).toMatchObject({ message: 'wrong password', shutForMs: 1000 });
    await expect(guard.attempt({ address: 'a', name: 'w' }, check('right'))).rejects.toBeInstanceOf(
      Throttled,
    );
    now += 1000;
    await expect(guard.attempt({ address: 'a', name: 'w' }, check('right'))).resolves.toBe('in');
  });

  it('refuses unchecked beyond the waiting room of a key', async () => {
    const guard = new LoginGuard({ names: THROTTLE, addresses: THROTTLE, maxWaiting: 5 });
    const { o, check } = checker('right');
    const all = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => guard.attempt({ address: `a${i}`, name: 'same' }, check('right'))),
    );
    // 2 run, 5 wait, 3 refused at once; those that waited are checked in turn.
    expect(all.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    expect(all.filter((r) => r.status === 'rejected' && r.reason instanceof Throttled)).toHaveLength(3);
    expect(o.performed).toBe(7);
    expect(guard.busyKeys()).toBe(0);
  });
});
