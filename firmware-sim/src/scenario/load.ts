import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { type Scenario, scenarioSchema } from './schema.ts';

export const SCENARIO_DIR = fileURLToPath(new URL('../../scenarios/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface LoadedScenario {
  scenario: Scenario;
  path: string;
}

/** Scenario names shipped in firmware-sim/scenarios (every *.yaml except the gateway config). */
export function listScenarios(dir = SCENARIO_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && !f.startsWith('gateway'))
    .map((f) => basename(f, extname(f)))
    .sort();
}

/** Parses and validates scenario text; throws with every problem and its path. */
export function parseScenario(text: string, source: string): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new Error(`${source}: cannot parse YAML: ${(e as Error).message}`);
  }
  const res = scenarioSchema.safeParse(raw);
  if (!res.success)
    throw new Error(
      `${source}: invalid scenario:\n${res.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')}`,
    );
  return res.data;
}

/** Loads a scenario by name (from firmware-sim/scenarios) or by path. */
export function loadScenario(nameOrPath: string): LoadedScenario {
  const candidates = [
    nameOrPath,
    resolve(SCENARIO_DIR, `${nameOrPath}.yaml`),
    resolve(SCENARIO_DIR, nameOrPath),
  ];
  const path = candidates.find((p) => /\.ya?ml$/.test(p) && existsSync(p));
  if (!path) throw new Error(`no scenario "${nameOrPath}" (try --list)`);
  return { scenario: parseScenario(readFileSync(path, 'utf8'), path), path };
}

/** Finds a rain record: absolute, next to the scenario, in $RAIN_DATA_DIR, or in the repository's rain records (test/fixtures/rain). */
export function resolveDataFile(file: string, scenarioPath: string): string {
  if (isAbsolute(file)) return file;
  const candidates = [
    resolve(dirname(scenarioPath), file),
    ...(process.env.RAIN_DATA_DIR ? [resolve(process.env.RAIN_DATA_DIR, file)] : []),
    resolve(REPO_ROOT, 'test/fixtures/rain', file),
  ];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`rain record "${file}" not found in: ${candidates.join(', ')}`);
  return found;
}
