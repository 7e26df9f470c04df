/** The rule registry is consistent: ids, folders, parameters in the configuration, states, reports. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deviceSchema, siteSchema } from '../../gateway/src/config/schema.ts';
import { RULE_IDS, RULE_MODULES, ruleModule } from '../../gateway/src/rules/index.ts';
import { REPORT_SECTIONS, ruleIdsOf, stateKeyOf } from '../../gateway/src/rules/module.ts';

const RULES_DIR = join(import.meta.dirname, '../../gateway/src/rules');

describe('the rule registry', () => {
  it('gives every module a unique name and its own folder, and registers every folder', () => {
    const names = RULE_MODULES.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(existsSync(join(RULES_DIR, n, 'index.ts')), n).toBe(true);
    const folders = readdirSync(RULES_DIR, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(RULES_DIR, d.name, 'index.ts')))
      .map((d) => d.name);
    expect(folders.sort()).toEqual([...names].sort());
  });

  it('serves every rule id by exactly one module, and RULE_IDS lists each once', () => {
    const ids = RULE_MODULES.flatMap((m) => ruleIdsOf(m));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...RULE_IDS].sort()).toEqual([...ids].sort());
    for (const id of RULE_IDS) {
      expect(
        RULE_MODULES.filter((m) => ruleIdsOf(m).includes(id)),
        id,
      ).toHaveLength(1);
      expect(ruleIdsOf(ruleModule(id)!)).toContain(id);
    }
  });

  it("merges the modules' parameters into the site and device configuration, defaults included", () => {
    const site = siteSchema.parse({ id: 's', kind: 'construction' });
    for (const m of RULE_MODULES) {
      for (const [key, schema] of Object.entries(m.params.site)) {
        expect(siteSchema.shape[key as keyof typeof siteSchema.shape], `${m.name}: ${key}`).toBe(schema);
        expect(site[key as keyof typeof site], `${m.name}: ${key} has a default`).toBeDefined();
      }
      for (const [key, schema] of Object.entries(m.params.device))
        expect(deviceSchema.shape[key as keyof typeof deviceSchema.shape], `${m.name}: ${key}`).toBe(schema);
    }
    // A key two modules share is one schema: the hold of a debounced input.
    const holds = RULE_MODULES.filter((m) => 'alarmHoldSeconds' in m.params.site);
    expect(holds.length).toBeGreaterThan(1);
    expect(new Set(holds.map((m) => (m.params.site as Record<string, unknown>).alarmHoldSeconds)).size).toBe(
      1,
    );
  });

  it('declares for each module a state version, a law, a report section and a binding', () => {
    for (const m of RULE_MODULES) {
      expect(Number.isInteger(m.state.version) && m.state.version >= 1, m.name).toBe(true);
      expect(typeof m.state.upgrade, m.name).toBe('function');
      expect(m.law.length, m.name).toBeGreaterThan(0);
      expect(REPORT_SECTIONS, m.name).toContain(m.report.section);
      expect('perSite' in m.binds || 'perDevice' in m.binds, m.name).toBe(true);
      expect(stateKeyOf(m), m.name).toBe(ruleIdsOf(m).join('+'));
    }
    // Exactly one module keeps the storm records; only the remedy rules (of alarms and of the annual
    // inspection's deficiencies) allow an extension.
    expect(RULE_MODULES.filter((m) => m.storms)).toHaveLength(1);
    expect(RULE_IDS.filter((id) => ruleModule(id)!.duty.extendable).sort()).toEqual([
      'equipment-deficiency',
      'equipment-remedy',
      'field-deficiency',
      'field-remedy',
    ]);
  });

  it('has a row for every module, with its folder (linked to its README) and law, in rules/README.md', () => {
    const rows = readFileSync(join(RULES_DIR, 'README.md'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('| [`'));
    for (const m of RULE_MODULES) {
      const row = rows.find((l) => l.startsWith(`| [\`${m.name}/\`](${m.name}/README.md)`));
      expect(row, m.name).toBeDefined();
      expect(row, m.name).toContain(m.law);
      for (const id of ruleIdsOf(m)) expect(row, m.name).toContain(id);
    }
  });
});
