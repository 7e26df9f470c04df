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
    // The check's own time: it is what makes checks overlap.
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

  it('16 wrong logins with made-up names from one address never refuse the right ones there: a short delay at most', async () => {
    let now = 0;
    const slept: number[] = [];
    const guard = new LoginGuard({
      names: THROTTLE,
      addresses: { ...THROTTLE, free: 10, leakMs: 6000 },
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    const { check } = checker('right');
    for (let i = 0; i < 16; i++)
      await expect(guard.attempt({ address: 'a', name: `made-up-${i}` }, check('bad'))).rejects.toThrow(
        'wrong',
      );
    // Three devices and a person, 20 logins each over a minute: every one in, each delayed at most 1 s.
    for (let i = 0; i < 20; i++) {
      for (const name of ['rg-1', 'rg-2', 'rg-3', 'olive@chester.example'])
        await expect(guard.attempt({ address: 'a', name }, check('right'))).resolves.toBe('in');
      now += 3000;
    }
    expect(Math.max(...slept)).toBeLessThanOrEqual(1000);
    // The address's count decays: after a minute it delays nothing.
    expect(guard.addressDelay('a')).toBe(0);
    // A made-up name is still shut after its own failures (brute force bounded per name).
    for (let i = 0; i < 4; i++)
      await guard.attempt({ address: 'b', name: 'x' }, check('bad')).catch(() => {});
    await expect(guard.attempt({ address: 'c', name: 'x' }, check('right'))).rejects.toBeInstanceOf(
      Throttled,
    );
  });

  it('at most 10 checks a minute for one name, whatever the addresses', async () => {
    let now = 0;
    const guard = new LoginGuard({ now: () => now, sleep: async () => {} });
    const { o, check } = checker('right');
    for (let s = 0; s < 60; s++) {
      await guard.attempt({ address: `10.0.0.${s}`, name: 'rg-1' }, check('bad')).catch(() => {});
      now += 1000;
    }
    expect(o.performed).toBeLessThanOrEqual(10);
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
