/**
 * Nothing outside a rule's folder names its rule id: the engine, the stores, the reports, the API and the
 * configuration ask the registry, and the dashboard asks GET /api/rules. A rule id as a string literal
 * anywhere else in gateway/src, in the dashboard or in the shared contract fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_MODULES } from '../../gateway/src/rules/index.ts';
import { ruleIdsOf } from '../../gateway/src/rules/module.ts';

const ROOT = join(import.meta.dirname, '../..');
/** The folders scanned, and the extensions of their sources. */
const SCANNED: Array<{ dir: string; ext: RegExp }> = [
  { dir: 'gateway/src', ext: /\.ts$/ },
  { dir: 'shared/src', ext: /\.ts$/ },
  { dir: 'dashboard', ext: /\.(ts|html)$/ },
];

/** Files that may name rule ids, and why: none today (each rule says who is responsible for it, too). */
const ALLOWED: RegExp[] = [];

function sources(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    if (d.isDirectory()) return sources(p, ext);
    return ext.test(d.name) ? [p] : [];
  });
}

/** A rule id as a string literal (or the start of one: a key prefix). */
function literalOf(id: string): RegExp {
  return new RegExp(`['"\`]${id.replace(/-/g, '\\-')}(?![\\w-])`);
}

describe('rule ids', () => {
  it('are named only inside their own rule folder', () => {
    const found: string[] = [];
    const files = SCANNED.flatMap(({ dir, ext }) => sources(join(ROOT, dir), ext));
    for (const file of files) {
      const rel = relative(ROOT, file).split(sep).join('/');
      if (ALLOWED.some((a) => a.test(rel))) continue;
      const lines = readFileSync(file, 'utf8').split('\n');
      for (const m of RULE_MODULES) {
        if (rel.startsWith(`gateway/src/rules/${m.name}/`)) continue;
        for (const id of ruleIdsOf(m)) {
          const literal = literalOf(id);
          lines.forEach((line, i) => {
            if (literal.test(line)) found.push(`${rel}:${i + 1}: ${id}`);
          });
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('scans the gateway, the shared contract and the dashboard', () => {
    const files = SCANNED.flatMap(({ dir, ext }) => sources(join(ROOT, dir), ext)).map((f) =>
      relative(ROOT, f).split(sep).join('/'),
    );
    expect(files).toContain('gateway/src/rules/index.ts');
    expect(files).toContain('shared/src/rules.ts');
    expect(files).toContain('dashboard/src/pages/alerts/alerts.ts');
    expect(files).toContain('dashboard/index.html');
  });

  it('the check finds a rule id named as a literal, or as the start of a key', () => {
    const literal = literalOf('storm-inspection');
    expect(literal.test("if (a.rule === 'storm-inspection') return;")).toBe(true);
    expect(literal.test('const key = `storm-inspection:x`;')).toBe(true);
    expect(literal.test('"storm-inspection"')).toBe(true);
    expect(literal.test("'storm-inspection-x'")).toBe(false);
    expect(literal.test('a storm-inspection alert')).toBe(false);
  });
});
