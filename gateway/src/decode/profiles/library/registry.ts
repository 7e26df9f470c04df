import type { Profile } from '../schema.ts';
import { sutronAccububble } from './sutron-accububble.ts';
import { sutronSdiTb } from './sutron-sdi-tb.ts';

/** The library's profiles, each in its own file beside this one. */
export const LIBRARY: readonly Profile[] = [sutronAccububble, sutronSdiTb];
