import type { Profile } from '../schema.ts';
import { aquareadLevelineCtd } from './aquaread-leveline-ctd.ts';
import { icpdasAlm04Mrtu } from './icpdas-alm-04-mrtu.ts';

/** The library's profiles, each in its own file beside this one. */
export const LIBRARY: readonly Profile[] = [aquareadLevelineCtd, icpdasAlm04Mrtu];
