import { describe, expect, it } from 'vitest';
import {
  configCollisions,
  deviceHolder,
  deviceIdentities,
  IdentityIndex,
  userHolder,
} from '../../gateway/src/config/identities.ts';
import { ConfigError, parseConfig } from '../../gateway/src/config/load.ts';

describe('MQTT identities', () => {
  it('a device holds its siteId/deviceId, its login name and its client ids', () => {
    expect(deviceIdentities('s', { id: 'd' })).toEqual(['s/d']);
    expect(deviceIdentities('s', { id: 'd', username: 'u', clientIds: ['c', 'p*'] })).toEqual([
      's/d',
      'u',
      'c',
      'p*',
    ]);
  });

  it('finds exact ids and ids a pattern covers, either way round, and leaves out the holder itself', () => {
    const index = new IdentityIndex();
    index.add(deviceHolder('s', 'a'), ['s/a', 'spare-a']);
    index.add(deviceHolder('s', 'b'), ['s/b', 'b/*']);
    index.add(userHolder('ops'), ['ops']);
    expect(index.collision(['s/c'])).toBeUndefined();
    expect(index.collision(['spare-a'])?.holder.what).toBe('device a of site s');
    expect(index.collision(['b/7'])).toMatchObject({ identity: 'b/7', held: 'b/*' });
    expect(index.collision(['b/7/*'])).toMatchObject({ held: 'b/*' });
    expect(index.collision(['b*'])).toMatchObject({ held: 'b/*' });
    expect(index.collision(['spare*'])).toMatchObject({ held: 'spare-a' });
    expect(index.collision(['ops'])?.holder.what).toBe('the MQTT account ops');
    expect(index.collision(['s/a', 'spare-a'], deviceHolder('s', 'a').key)).toBeUndefined();
  });

  it('reports each collision of a configuration at the later holder', () => {
    const found = configCollisions(
      [
        {
          id: 's',
          devices: [{ id: 'a' }, { id: 'b', clientIds: ['x', 's/a'] }, { id: 'c', username: 's/b' }],
        },
        { id: 't', devices: [{ id: 'a' }] },
      ],
      [{ username: 't/a' }],
    );
    expect(found.map((f) => f.path.join('.'))).toEqual([
      'sites.0.devices.1.clientIds.1',
      'sites.0.devices.2.username',
      'mqtt.users.0.username',
    ]);
    expect(found[0]!.message).toBe(
      'The MQTT login name or client id "s/a" already belongs to device a of site s. Each device needs a login name and client ids of its own.',
    );
  });

  it('the configuration check refuses a collision', () => {
    const input = {
      gatewayId: 'g',
      sites: [
        {
          id: 's',
          kind: 'construction',
          devices: [
            { id: 'a', kind: 'rain-gauge', inchesPerTip: 0.01 },
            { id: 'b', kind: 'rain-gauge', inchesPerTip: 0.01, username: 's/a' },
          ],
        },
      ],
    };
    expect(() => parseConfig(input, {})).toThrow(ConfigError);
    expect(() => parseConfig(input, {})).toThrow(/sites\[0\]\.devices\[1\]\.username: .*device a of site s/);
  });
});
