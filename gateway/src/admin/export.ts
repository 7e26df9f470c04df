/**
 * The store's sites, devices, recipients and accounts written back as configuration (`npm run
 * config:export`): the configuration file as it was, with `sites` and `auth.users` replaced by what the
 * store holds now (device secrets and account passwords as their hashes, earlier calibrations with ISO
 * times). Loaded by a gateway with an empty store, it seeds the same sites and devices.
 */
import type { SiteConfig } from '../config/schema.ts';

const iso = (t: number) => new Date(t).toISOString();

/** A site as configuration: its devices with their secrets' hashes and earlier calibrations. */
export function siteForExport(site: SiteConfig): Record<string, unknown> {
  return {
    ...site,
    devices: site.devices.map((d) => ({
      ...d,
      ...(d.calibrations ? { calibrations: d.calibrations.map((c) => ({ ...c, until: iso(c.until) })) } : {}),
    })),
  };
}

export function exportConfig(
  raw: Record<string, unknown>,
  sites: readonly SiteConfig[],
  /** The accounts as configuration (`auth.users`, people/accounts.ts `accountsForExport`). */
  accounts: readonly Record<string, unknown>[],
): Record<string, unknown> {
  const auth = (raw.auth ?? {}) as Record<string, unknown>;
  return {
    ...raw,
    auth: { ...auth, users: accounts },
    sites: sites.map(siteForExport),
  };
}
