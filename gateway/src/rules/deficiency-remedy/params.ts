/**
 * The `deficiency-remedy` rule's parameters: the same days as the alarms' remedies (`../remedy/`), the
 * same keys and schemas, so a site sets them once for both.
 */
import { params as remedyParams } from '../remedy/params.ts';

export const params = {
  site: {
    equipmentRemedyDays: remedyParams.site.equipmentRemedyDays,
    fieldRemedyDays: remedyParams.site.fieldRemedyDays,
  },
  device: {},
};

export type Params = typeof params;
