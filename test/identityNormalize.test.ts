import { describe, expect, it } from 'vitest';
import { deviceHolder, IdentityIndex, normalizeIdentity } from '../gateway/src/config/identities.ts';
import { buildRegistry } from '../gateway/src/config/registry.ts';

describe('login names and client ids compared normalized', () => {
  it('case, trailing spaces, Unicode hyphens and compatibility forms are one identity', () => {
    for (const v of ['Maple-Ridge/RG-1', 'maple-ridge/rg-1 ', 'maple\u2010ridge/rg-1', 'ｍaple-ridge/rg-1'])
      expect(normalizeIdentity(v)).toBe('maple-ridge/rg-1');
    const index = new IdentityIndex();
    index.add(deviceHolder('maple-ridge', 'rg-1'), ['maple-ridge/rg-1']);
    for (const v of ['Maple-Ridge/RG-1', 'maple-ridge/rg-1 ', 'maple\u2011ridge/rg-1'])
      expect(index.collision([v])?.holder.what).toBe('device rg-1 of site maple-ridge');
    index.add(deviceHolder('maple-ridge', 'rg-2'), ['Pump-*']);
    expect(index.collision(['pump\u2013a'])?.held).toBe('Pump-*');
  });

  it('a device logs in under a look-alike of its name only as itself', () => {
    const reg = buildRegistry({
      sites: [{ id: 'maple-ridge', devices: [{ id: 'rg-1', kind: 'rain-gauge' }] }],
    } as never);
    expect(reg.byUsername('Maple-Ridge/RG-1 ')?.deviceId).toBe('rg-1');
  });
});
