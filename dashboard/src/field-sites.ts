/**
 * The sites as the inspection form needs them (name, time zone, practices), kept on this phone each time
 * the page reads them, so that an inspector who opens the page without a connection can still record an
 * inspection; it waits on the phone until it is sent. Forgotten when the person signs out.
 */
import type { SiteView as Site } from '../../shared/src/api.ts';

export type FieldSite = Pick<Site, 'id' | 'name' | 'kind' | 'timezone' | 'practices'>;

const KEY = 'gateway.fieldSites';

export function keepFieldSites(sites: readonly Site[]): void {
  const kept: FieldSite[] = sites.map((s) => ({
    id: s.id,
    name: s.name,
    kind: s.kind,
    timezone: s.timezone,
    ...(s.practices ? { practices: s.practices } : {}),
  }));
  try {
    localStorage.setItem(KEY, JSON.stringify(kept));
  } catch (e) {
    console.warn('the sites could not be kept on this phone for use without a connection', e);
  }
}

export function keptFieldSites(): FieldSite[] {
  try {
    const text = localStorage.getItem(KEY);
    const kept: unknown = text ? JSON.parse(text) : [];
    return Array.isArray(kept) ? (kept as FieldSite[]) : [];
  } catch (e) {
    console.warn('the sites kept on this phone could not be read', e);
    return [];
  }
}

export function forgetFieldSites(): void {
  try {
    localStorage.removeItem(KEY);
  } catch (e) {
    console.warn('the sites kept on this phone could not be removed', e);
  }
}
