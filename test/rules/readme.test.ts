/**
 * Every rule folder has a README.md that quotes its law (or names the promise it keeps), lists its
 * parameters and its alerts (test/rules/registry.test.ts checks the rules' README links to each).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULE_MODULES } from '../../gateway/src/rules/index.ts';
import { ruleIdsOf } from '../../gateway/src/rules/module.ts';

const RULES_DIR = join(import.meta.dirname, '../../gateway/src/rules');

describe('every rule folder README', () => {
  for (const m of RULE_MODULES) {
    it(`${m.name}/README.md quotes the law and lists the parameters and the alerts`, () => {
      const file = join(RULES_DIR, m.name, 'README.md');
      expect(existsSync(file), file).toBe(true);
      const text = readFileSync(file, 'utf8');
      for (const id of ruleIdsOf(m)) expect(text, id).toContain(id);
      const hasLaw = /^## The law$/m.test(text) && /^> /m.test(text);
      const ownPromise = m.law.startsWith("the product's own") && /^## The promise it keeps$/m.test(text);
      expect(hasLaw || ownPromise, `${m.name}: a quoted law or the promise it keeps`).toBe(true);
      for (const heading of ['## Parameters', '## Its alerts'])
        expect(text, `${m.name}: ${heading}`).toContain(heading);
      for (const part of ['site', 'device'] as const)
        for (const key of Object.keys(m.params[part]))
          expect(text, `${m.name}: ${key}`).toContain(`\`${key}`);
    });
  }
});
