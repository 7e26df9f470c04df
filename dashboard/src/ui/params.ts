/**
 * Form fields for a schema's parameters, drawn from its JSON Schema (zod's toJSONSchema): a number field
 * for a number, a choice for an enum, a box for a flag, a group for an object, JSON for the rest (e.g. a
 * stage-storage table). So a rule's new parameter appears in the forms without a change here.
 */
import { getPath, schemas } from './form.js';

type Field = import('./form.js').Field;
type Rule = import('../state.js').Rule;

/** A site parameter in its rules' words: label, unit, options, the laws it comes from, the site kinds. */
export interface Said {
  label: string;
  unit: string;
  options?: Array<{ value: string; label: string }>;
  laws: string[];
  kinds: string[];
}

/**
 * The site parameters in words, by dotted name, from the rules (GET /api/rules: each module's
 * `siteParams`): a parameter two modules share (the remedy days) names both laws and both kinds.
 */
export function paramWordsOf(rules: readonly Rule[]): Map<string, Said> {
  const out = new Map<string, Said>();
  for (const r of rules)
    for (const p of r.siteParams.params) {
      const had = out.get(p.param);
      const said: Said = had ?? { label: p.label, unit: p.unit, laws: [], kinds: [] };
      if (p.options && !said.options) said.options = p.options;
      if (!said.laws.includes(r.law)) said.laws.push(r.law);
      for (const k of r.siteParams.kinds) if (!said.kinds.includes(k)) said.kinds.push(k);
      out.set(p.param, said);
    }
  return out;
}

/** A parameter's field as its rules say it: its label with its unit, the law, shown for its site kinds. */
function spoken(f: Field, said: Said | undefined, kind: string | undefined): Field {
  if (!said) return f;
  const options = f.options?.map(([v, l]): [string, string] => [
    v,
    said.options?.find((o) => o.value === v)?.label ?? l,
  ]);
  const { hint: _described, ...rest } = f;
  return {
    ...rest,
    label: said.unit ? `${said.label} (${said.unit})` : said.label,
    hint: `From the law: ${said.laws.join('; ')}.`,
    ...(options ? { options } : {}),
    when: (v) => said.kinds.includes(String(v.kind ?? kind ?? '')),
  };
}

/**
 * @returns "thresholdIn" -> "threshold in"
 */
export const words = (key: string): string =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();

/**
 * The JSON Schema of a zod schema as its input, or undefined without the bundle.
 */
export async function jsonSchemaOf(schema: unknown) {
  const s = await schemas();
  if (!s?.z || !schema) return undefined;
  try {
    return s.z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  } catch (e) {
    console.warn('no JSON Schema for a form', e);
    return undefined;
  }
}

/**
 * @param js a JSON Schema node
 * @returns the node without its nullable/optional wrappers
 */
function unwrap(js: any): any {
  const alts = js?.anyOf ?? js?.oneOf;
  if (Array.isArray(alts)) {
    const real = alts.filter((a) => a?.type !== 'null' && a?.not === undefined);
    if (real.length === 1) return unwrap(real[0]);
  }
  return js ?? {};
}

/**
 * @param values current values, to fill the fields
 */
function fieldsOf(js: any, prefix: string, values: unknown, label: string): Field[] {
  const node = unwrap(js);
  const value = prefix ? getPath(values, prefix) : undefined;
  const hint = typeof node.description === 'string' ? node.description : undefined;
  const dflt = node.default ?? js?.default;
  const base = {
    name: prefix,
    label,
    ...(hint ? { hint } : {}),
    ...(dflt !== undefined && typeof dflt !== 'object' ? { placeholder: `default ${dflt}` } : {}),
  };
  if (node.type === 'object' && node.properties)
    return Object.entries(node.properties).flatMap(([k, v]) =>
      fieldsOf(v, prefix ? `${prefix}.${k}` : k, values, prefix ? `${label}: ${words(k)}` : words(k)),
    );
  if (node.type === 'number' || node.type === 'integer')
    return [{ ...base, type: 'number', value, ...(node.type === 'integer' ? { step: '1' } : {}) }];
  if (node.type === 'boolean') return [{ ...base, type: 'checkbox', value }];
  if (Array.isArray(node.enum))
    return [
      {
        ...base,
        type: 'select',
        value,
        options: [
          ['', '(default)'] as [string, string],
          ...node.enum.map((e: unknown) => [String(e), String(e)] as [string, string]),
        ],
      },
    ];
  if (node.type === 'string') return [{ ...base, value }];
  return [{ ...base, type: 'json', value, hint: hint ?? 'JSON' }];
}

/**
 * The fields for a schema's properties except `omit`, each in its rules' words (`said`) when they give
 * them: labelled with its unit and its law, shown only for the kinds of site it applies to.
 * @param js JSON Schema of an object
 * @param [group] the fold they are shown in
 */
export function paramFields(
  js: any,
  omit: string[],
  values?: unknown,
  group: string = 'Rule parameters',
  said: ReadonlyMap<string, Said> = new Map(),
): Field[] {
  const props = unwrap(js)?.properties ?? {};
  const kind = (values as { kind?: string } | undefined)?.kind;
  return Object.entries(props)
    .filter(([k]) => !omit.includes(k))
    .flatMap(([k, v]) => fieldsOf(v, k, values, words(k)))
    .map((f) => ({ ...spoken(f, said.get(f.name), kind), group }));
}
