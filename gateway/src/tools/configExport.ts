/**
 * `npm run config:export -- [--config FILE] [--data DIR] [--out FILE]`: writes the configuration with the
 * sites, devices, recipients and accounts the store holds now (see admin/export.ts), as YAML, to FILE or
 * standard output. The configuration defaults to GATEWAY_CONFIG (else the sample), the data directory to
 * GATEWAY_DATA_DIR (else the configuration's `dataDir`). Run it while the gateway runs or not.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml, stringify } from 'yaml';
import { exportConfig } from '../admin/export.ts';
import { CatalogueRows } from '../admin/rows.ts';
import { loadConfig } from '../config/load.ts';
import { SAMPLE_CONFIG } from '../paths.ts';
import { accountsForExport } from '../people/accounts.ts';
import { openDatabase } from '../store/db.ts';

const { values } = parseArgs({
  options: { config: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' } },
});
const path = values.config ?? process.env.GATEWAY_CONFIG ?? SAMPLE_CONFIG;
const config = loadConfig(path, {});
const text = readFileSync(path, 'utf8');
const raw = (extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text)) as Record<
  string,
  unknown
>;
const db = openDatabase(values.data ?? process.env.GATEWAY_DATA_DIR ?? config.dataDir);
const rows = new CatalogueRows(db);
// A store never started holds no sites yet: the configuration's own are what it would seed.
const sites = rows.empty() ? config.sites : rows.load().sites;
const out = stringify(exportConfig(raw, sites, accountsForExport(db)));
db.close();
if (values.out) writeFileSync(values.out, out);
else process.stdout.write(out);
