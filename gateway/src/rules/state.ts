/**
 * Shared helpers for the rules' states: the first state of a site-level or per-device rule, and the
 * upgrade of version 1 (the first version: nothing older to upgrade).
 */
/** The upgrade of a state at its first version: a stored state without `v` is version 1, today's shape. */
export function firstVersion<S>(state: unknown): S {
  return state as S;
}

/** What every site-level rule's state begins with: its version and its site. */
export interface SiteStateHead {
  v: 1;
  siteId: string;
}

/** What every per-device rule's state begins with: its version, its site and its device. */
export interface DeviceStateHead extends SiteStateHead {
  deviceId: string;
}

/** The first state of a site-level rule: version 1, its site, and the rule's own fields. */
export function siteState<T extends object>(ctx: { site: { id: string } }, fields: T): SiteStateHead & T {
  return { v: 1, siteId: ctx.site.id, ...fields };
}

/** The first state of a per-device rule: version 1, its site and device, and the rule's own fields. */
export function deviceState<T extends object>(
  rule: string,
  ctx: { site: { id: string } },
  deviceId: string | undefined,
  fields: T,
): DeviceStateHead & T {
  if (deviceId === undefined) throw new Error(`${rule} is a per-device rule: pass the deviceId`);
  return { v: 1, siteId: ctx.site.id, deviceId, ...fields };
}
