/**
 * What the inspection form needs, kept on this phone each time the page reads it, so that an inspector
 * who opens the page when the gateway cannot be reached can still record an inspection (it waits on the
 * phone until it is sent): the person signed in (name, role, the sites they act on; no secret), the
 * sites with their names, kinds, time zones and practices, and the labels of the duties an inspection
 * meets, to name the inspections waiting. Forgotten when the person signs out.
 *
 * Kept in `localStorage`, not IndexedDB: it is small (at most FIELD_COPY_MAX_CHARS), and the page reads
 * it at once at start, before it draws anything; the inspections and their photos, which are large, wait
 * in IndexedDB (`waiting.ts`).
 */
import type { MeResponse } from '../../shared/src/admin.ts';
import type { SiteView as Site } from '../../shared/src/api.ts';
import type { RuleInfo } from '../../shared/src/rules.ts';

export type FieldSite = Pick<Site, 'id' | 'name' | 'kind' | 'timezone' | 'practices'>;
/** A duty an inspection meets: its label, the kinds of inspection and the sides that meet it, where. */
export type FieldRule = Pick<RuleInfo, 'id' | 'label' | 'meetsInspections' | 'meetsSides'> & {
  /** The kinds of site it applies to (none: any). */
  siteKinds: string[];
};
/** The person signed in: name, role, and the sites an owner's or contractor's account acts on. */
export type FieldPerson = Pick<MeResponse, 'name' | 'role'> & { sites?: MeResponse['sites'] };

export interface FieldCopy {
  /** When the sites were read (ms). */
  takenAt: number;
  person?: FieldPerson;
  sites: FieldSite[];
  rules: FieldRule[];
  /** Sites left out to keep the copy within its size. */
  left: number;
}

const KEY = 'gateway.fieldCopy';
/** Where an earlier release kept the sites alone: removed with the copy. */
const EARLIER_KEY = 'gateway.fieldSites';
/** The copy's size at most (characters of JSON): sites beyond it are left out. */
export const FIELD_COPY_MAX_CHARS = 256 * 1024;

/** The copy as last read or written (`null`: none), so that it is parsed once. */
let memo: FieldCopy | null | undefined;

function write(copy: FieldCopy): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(copy));
    memo = copy;
  } catch (e) {
    console.warn('field copy not kept', e);
  }
}

const isCopy = (v: unknown): v is FieldCopy =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as FieldCopy).takenAt === 'number' &&
  Array.isArray((v as FieldCopy).sites) &&
  Array.isArray((v as FieldCopy).rules);

/** The copy kept on this phone, if any. */
export function fieldCopy(): FieldCopy | undefined {
  if (memo !== undefined) return memo ?? undefined;
  try {
    const text = localStorage.getItem(KEY);
    const kept: unknown = text ? JSON.parse(text) : null;
    memo = isCopy(kept) ? kept : null;
  } catch (e) {
    console.warn('field copy not read', e);
    memo = null;
  }
  return memo ?? undefined;
}

/** The rules an inspection meets, as the copy keeps them. */
export function fieldRules(rules: readonly RuleInfo[]): FieldRule[] {
  return rules
    .filter((r) => r.meetsInspections.length > 0)
    .map((r) => ({
      id: r.id,
      label: r.label,
      meetsInspections: r.meetsInspections,
      meetsSides: r.meetsSides,
      siteKinds: r.siteParams.kinds,
    }));
}

/** The sites and the duties as the page read them, kept (with the person already kept). */
export function keepFieldCopy(sites: readonly Site[], rules: readonly RuleInfo[]): void {
  const kept: FieldSite[] = sites.map((s) => ({
    id: s.id,
    name: s.name,
    kind: s.kind,
    timezone: s.timezone,
    ...(s.practices ? { practices: s.practices } : {}),
  }));
  const duties = fieldRules(rules);
  const person = fieldCopy()?.person;
  const copy: FieldCopy = {
    takenAt: Date.now(),
    ...(person ? { person } : {}),
    sites: [],
    rules: duties,
    left: 0,
  };
  let size = JSON.stringify(copy).length;
  for (const s of kept) {
    const n = JSON.stringify(s).length + 1;
    if (size + n > FIELD_COPY_MAX_CHARS) break;
    copy.sites.push(s);
    size += n;
  }
  copy.left = kept.length - copy.sites.length;
  write(copy);
}

/** The person signed in, kept with the copy (their name, role and sites: no secret). */
export function keepFieldPerson(me: FieldPerson): void {
  const person: FieldPerson = {
    name: me.name,
    role: me.role,
    ...(me.sites !== undefined ? { sites: me.sites } : {}),
  };
  const copy = fieldCopy();
  if (JSON.stringify(copy?.person) === JSON.stringify(person)) return;
  write({ ...(copy ?? { takenAt: 0, sites: [], rules: [], left: 0 }), person });
}

export function forgetFieldCopy(): void {
  memo = null;
  try {
    localStorage.removeItem(KEY);
    localStorage.removeItem(EARLIER_KEY);
  } catch (e) {
    console.warn('field copy not removed', e);
  }
}
