/**
 * `npm run docs:config`: writes docs/configuration-reference.md from the configuration schema (every key,
 * its type, default, allowed values and description; config/reference.ts). Run it after changing the
 * schema; test/tools/configDoc.test.ts fails while the committed page differs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configReference, undescribedKeys } from '../config/reference.ts';

const REFERENCE_PATH = join(import.meta.dirname, '../../../docs/configuration-reference.md');

const missing = undescribedKeys();
if (missing.length > 0) console.warn(`keys without a description: ${missing.join(', ')}`);
writeFileSync(REFERENCE_PATH, configReference());
console.log(`wrote ${REFERENCE_PATH}`);
