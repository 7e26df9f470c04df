/**
 * The town-wide view tells a site's stop-work order: this gateway publishes it with the site (since when,
 * why), a site without one says none, and a follower's schema accepts both, and a gateway that does not
 * tell.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { fleetStateSchema, ownSites } from '../../gateway/src/fleet/state.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const SINCE = '2026-11-30T14:00:00.000Z';

describe('the stop-work order in the town-wide view', () => {
  const config = parseConfig({
    ...testConfigInput(),
    sites: [
      { id: 'maple-ridge', name: 'Maple Ridge', kind: 'construction', devices: [] },
      { id: 'oak-hill', name: 'Oak Hill', kind: 'construction', devices: [] },
    ],
  });
  const sources = {
    sites: () => config.sites,
    timezone: config.timezone,
    deviceState: () => undefined,
    openAlerts: () => [],
  };

  it('publishes the order in effect with its site, and none for the others', () => {
    const sites = ownSites({
      ...sources,
      stopWork: (id) =>
        id === 'maple-ridge' ? { since: SINCE, reason: 'Sediment leaves the site.' } : undefined,
    });
    expect(sites.map((s) => [s.id, s.stopWork])).toEqual([
      ['maple-ridge', { since: SINCE, reason: 'Sediment leaves the site.' }],
      ['oak-hill', null],
    ]);
    const state = { gatewayId: 'gw-a', publishedAt: SINCE, everySeconds: 60, sites };
    expect(fleetStateSchema.parse(JSON.parse(JSON.stringify(state))).sites[0]!.stopWork).toEqual({
      since: SINCE,
      reason: 'Sediment leaves the site.',
    });
  });

  it('leaves it out for a gateway that does not tell, and a follower accepts that', () => {
    const sites = ownSites(sources);
    expect(sites.every((s) => !('stopWork' in s))).toBe(true);
    const state = { gatewayId: 'gw-b', publishedAt: SINCE, everySeconds: 60, sites };
    expect(fleetStateSchema.safeParse(state).success).toBe(true);
  });

  it('publishes work halted by a violation finding with its site, and none for the others', () => {
    const sites = ownSites({
      ...sources,
      workHalted: (id) => (id === 'maple-ridge' ? { since: SINCE, practices: ['Silt fence, north'] } : null),
    });
    expect(sites.map((s) => [s.id, s.workHalted])).toEqual([
      ['maple-ridge', { since: SINCE, practices: ['Silt fence, north'] }],
      ['oak-hill', null],
    ]);
    const state = { gatewayId: 'gw-a', publishedAt: SINCE, everySeconds: 60, sites };
    expect(fleetStateSchema.parse(JSON.parse(JSON.stringify(state))).sites[0]!.workHalted).toEqual({
      since: SINCE,
      practices: ['Silt fence, north'],
    });
    expect(ownSites(sources).every((s) => !('workHalted' in s))).toBe(true);
  });
});
