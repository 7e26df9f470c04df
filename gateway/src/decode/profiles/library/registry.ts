import type { Profile } from '../schema.ts';
import { aquareadLevelineCtd } from './aquaread-leveline-ctd.ts';
import { draginoCpl01Float } from './dragino-cpl01-float.ts';
import { draginoLdds75 } from './dragino-ldds75.ts';
import { draginoLdds75Sediment } from './dragino-ldds75-sediment.ts';
import { draginoLsn50v2Count } from './dragino-lsn50v2-count.ts';
import { icpdasAlm04Mrtu } from './icpdas-alm-04-mrtu.ts';
import { sutronAccububble } from './sutron-accububble.ts';
import { sutronSdiTb } from './sutron-sdi-tb.ts';

/** The library's profiles, each in its own file beside this one: LoRaWAN, then Modbus RTU, then SDI-12. */
export const LIBRARY: readonly Profile[] = [
  draginoLdds75,
  draginoLdds75Sediment,
  draginoLsn50v2Count,
  draginoCpl01Float,
  aquareadLevelineCtd,
  icpdasAlm04Mrtu,
  sutronAccububble,
  sutronSdiTb,
];
