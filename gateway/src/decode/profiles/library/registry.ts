import type { Profile } from '../schema.ts';

/** The library's profiles, each in its own file beside this one. */
export const LIBRARY: readonly Profile[] = [];
