/**
 * The rules' site and device parameters as two schemas, for the dashboard's forms (bundled into
 * /schemas.js): the API takes them as further keys of a site's or a device's body and checks them with
 * these very schemas, from the rule modules (config/schema.ts merges them the same way).
 */
import { z } from 'zod';
import { mergeParams } from '../rules/module.ts';
import { RULE_MODULES } from '../rules/registry.ts';

export const siteParams = z.object(mergeParams(RULE_MODULES, 'site'));
export const deviceParams = z.object(mergeParams(RULE_MODULES, 'device'));
