/**
 * The two lanes of tests: `npm test` (the fast lane) and `npm run test:e2e` (the rest). Each runs the
 * Vitest projects its script names with `--project`; the files of a project are what Vitest itself globs
 * from vitest.config.ts. Every test file under test/ must be in exactly one lane: in neither, no command
 * runs it; in both, two commands do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVitest } from 'vitest/node';

const ROOT = join(import.meta.dirname, '../..');
const LANES = { 'npm test': 'test', 'npm run test:e2e': 'test:e2e' } as const;
type Lane = keyof typeof LANES;

/** The projects a script runs: its `--project` arguments. */
function projectsOf(script: string): string[] {
  return [...script.matchAll(/--project[= ](\S+)/g)].map((m) => m[1]!);
}

describe('the lanes of tests', () => {
  const scripts = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;
  const filesOf = new Map<string, string[]>();

  beforeAll(async () => {
    const vitest = await createVitest('test', {
      watch: false,
      config: join(ROOT, 'vitest.config.ts'),
      root: ROOT,
    });
    try {
      for (const project of vitest.projects)
        filesOf.set(
          project.name,
          (await project.globTestFiles()).testFiles.map((f) => relative(ROOT, f)),
        );
    } finally {
      await vitest.close();
    }
  });
  afterAll(() => filesOf.clear());

  it('each lane runs projects the configuration has, and no project is in both', () => {
    const named = Object.values(LANES).flatMap((s) => projectsOf(scripts[s] ?? ''));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((p) => !filesOf.has(p))).toEqual([]);
    expect(new Set(named).size).toBe(named.length);
    expect([...filesOf.keys()].filter((p) => !named.includes(p))).toEqual([]);
  });

  it('every test file is in exactly one lane', () => {
    const lanesOf = new Map<string, Lane[]>();
    const all = (readdirSync(join(ROOT, 'test'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join('test', f));
    for (const f of all) lanesOf.set(f, []);
    for (const [lane, script] of Object.entries(LANES) as Array<[Lane, string]>)
      for (const project of projectsOf(scripts[script] ?? ''))
        for (const f of filesOf.get(project) ?? []) lanesOf.set(f, [...(lanesOf.get(f) ?? []), lane]);
    const wrong = [...lanesOf]
      .filter(([, lanes]) => lanes.length !== 1)
      .map(([f, lanes]) => `${f}: ${lanes.join(', ') || 'no lane'}`);
    expect(wrong).toEqual([]);
    expect(all.length).toBeGreaterThan(100);
  });

  it('the fast lane keeps what starts browsers, gateway processes and real servers out', () => {
    const fast = projectsOf(scripts[LANES['npm test']] ?? '').flatMap((p) => filesOf.get(p) ?? []);
    expect(
      fast.filter((f) => /^test\/(e2e|dashboard|soak|fuzz|integrations)\/|\.e2e\.test\.ts$/.test(f)),
    ).toEqual([]);
  });
});
