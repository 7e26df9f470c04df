/**
 * Every site parameter of every rule module is named in words by its module (`paramWords` in its
 * `params.ts`, served by GET /api/rules as `siteParams`): a label, its unit, a choice's options in words,
 * and the kinds of site it applies to; no words for a parameter that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { RULE_MODULES, ruleCatalogue } from '../../gateway/src/rules/index.ts';
import { SITE_KINDS } from '../../shared/src/admin.ts';

type Js = { type?: string; properties?: Record<string, Js>; enum?: unknown[]; anyOf?: Js[] };
const unwrap = (js: Js): Js => {
  const real = js.anyOf?.filter((a) => a.type !== 'null');
  return real?.length === 1 ? unwrap(real[0] as Js) : js;
};
/** The leaves of a module's site parameters, dotted, with their options when a choice. */
function leaves(js: Js, prefix = ''): Array<{ name: string; options?: string[] }> {
  return Object.entries(unwrap(js).properties ?? {}).flatMap(([k, v]) => {
    const node = unwrap(v);
    const name = prefix ? `${prefix}.${k}` : k;
    if (node.type === 'object' && node.properties) return leaves(node, name);
    return [{ name, ...(Array.isArray(node.enum) ? { options: node.enum.map(String) } : {}) }];
  });
}

describe("the rules' site parameters in words", () => {
  for (const m of RULE_MODULES) {
    const params = leaves(z.toJSONSchema(z.object(m.params.site), { io: 'input' }) as Js);
    it(`${m.name}: every site parameter has a label, a unit or options, and site kinds`, () => {
      const words = m.siteParamWords?.params ?? [];
      expect(words.map((w) => w.param).sort()).toEqual(params.map((p) => p.name).sort());
      if (params.length) {
        expect(m.siteParamWords?.kinds.length).toBeGreaterThan(0);
        for (const k of m.siteParamWords?.kinds ?? []) expect(SITE_KINDS).toContain(k);
      }
      for (const p of params) {
        const w = words.find((x) => x.param === p.name);
        expect(w?.label, p.name).toMatch(/^[A-Z][a-z' ,-]+/);
        expect(w?.label, p.name).not.toMatch(/[a-z][A-Z]/);
        if (p.options) expect(w?.options?.map((o) => o.value).sort(), p.name).toEqual([...p.options].sort());
        else expect(w?.unit, p.name).toMatch(/\w/);
      }
    });
  }

  it('serves them with each rule id of GET /api/rules, construction apart from septic', () => {
    const cat = ruleCatalogue();
    const storm = cat.find((r) => r.id === 'storm-inspection');
    expect(storm?.siteParams.kinds).toEqual(['construction']);
    expect(storm?.siteParams.params.find((p) => p.param === 'storm.thresholdIn')).toMatchObject({
      label: 'Rain that calls for a storm inspection',
      unit: 'in',
    });
    const septic = cat.find((r) => r.id === 'septic-pumping');
    expect(septic?.siteParams.kinds).not.toContain('construction');
  });
});
