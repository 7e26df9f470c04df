/**
 * The `deficiency-remedy` rule's parameters: the same days as the alarms' remedies (`../remedy/`), the
 * same keys and schemas, so a site sets them once for both.
 */

import type { ParamWords } from '../../../../shared/src/rules.ts';
import { params as remedyParams, paramWords as remedyWords } from '../remedy/params.ts';

export const params = {
  site: {
    equipmentRemedyDays: remedyParams.site.equipmentRemedyDays,
    fieldRemedyDays: remedyParams.site.fieldRemedyDays,
  },
  device: {},
};

export type Params = typeof params;

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = remedyWords.filter((w) => w.param in params.site);
