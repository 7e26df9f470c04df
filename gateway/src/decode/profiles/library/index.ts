/**
 * The library of ready profiles: one file each, for a sensor a town buys, with the maker's document it
 * follows. A device names one (`profile: <name>`) or writes its own out. `registry.ts` is a plain list.
 */
import type { Profile } from '../schema.ts';
import { LIBRARY } from './registry.ts';

const byName = new Map<string, Profile>(LIBRARY.map((p) => [p.name, p]));

/** The library's profiles, in the registry's order. */
export const PROFILES: readonly Profile[] = LIBRARY;

/** A library profile by name. */
export const profileByName = (name: string): Profile | undefined => byName.get(name);

/** The ready profiles a device may name (the library; tests may give their own). */
export interface ProfileLibrary {
  list: readonly Profile[];
  byName(name: string): Profile | undefined;
}

/** This library, as a ProfileLibrary. */
export const profileLibrary: ProfileLibrary = { list: PROFILES, byName: profileByName };

/** A device's profile: a library name resolved, or the one written out in its configuration. */
export function resolveProfile(
  p: string | Profile | undefined,
  lib: ProfileLibrary = profileLibrary,
): Profile | undefined {
  if (p === undefined) return undefined;
  return typeof p === 'string' ? lib.byName(p) : p;
}
