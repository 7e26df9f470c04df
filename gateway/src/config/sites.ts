/**
 * The live site catalogue as the stages see it. The store holds the sites (admin/catalogue.ts is the one
 * source, seeded from the configuration); the rules, the inputs, the quarantine, the fleet and Home
 * Assistant read them from it and follow its changes, so none keeps a copy of its own.
 */
import type { SiteConfig } from './schema.ts';

/** A change committed to the catalogue. */
export interface SiteChange {
  siteId: string;
  deviceId?: string;
  /** `secret` and `retired`: the device's live MQTT session must end. */
  what: 'site' | 'device' | 'secret' | 'retired';
  /** Who made it. */
  by: string;
}

export interface SiteCatalogue {
  /** The sites as they are now. */
  sites(): readonly SiteConfig[];
  site(id: string): SiteConfig | undefined;
  /** A site's retired devices (their history stays). */
  retiredDevices(siteId: string): readonly string[];
  /** Listeners run after each committed change, in the order they subscribed. */
  onChange(listener: (e: SiteChange) => void): void;
}
