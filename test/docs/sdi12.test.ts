/** docs/devices/sdi12.md: the configuration a town copies is one the gateway takes, profiles resolved. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { resolveProfile } from '../../gateway/src/decode/profiles/library/index.ts';

const PAGE = readFileSync(join(import.meta.dirname, '../../docs/devices/sdi12.md'), 'utf8');
const blocks = [...PAGE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!));

describe('the SDI-12 page', () => {
  it('its adapter and devices are a valid configuration, each profile an SDI-12 one', () => {
    const [main, more] = blocks as [
      Record<string, unknown> & { sites: Array<{ devices: unknown[] }> },
      unknown[],
    ];
    main.sites[0]!.devices.push(...more);
    const config = parseConfig({ gatewayId: 'docs', dataDir: '/nonexistent', ...main });
    const devices = config.sites[0]!.devices;
    expect(devices.map((d) => d.id)).toEqual(['tank-1', 'tank-2']);
    for (const d of devices) {
      expect(resolveProfile(d.profile)?.transport).toBe('sdi12');
      expect(d.sdi12?.port).toBe(config.sdi12[0]!.path);
    }
  });
});
