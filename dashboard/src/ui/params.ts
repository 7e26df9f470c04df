/**
 * Form fields for a schema's parameters, drawn from its JSON Schema (zod's toJSONSchema): a number field
 * for a number, a choice for an enum, a box for a flag, a group for an object, JSON for the rest (e.g. a
 * stage-storage table). So a rule's new parameter appears in the forms without a change here.
 */
import { getPath, schemas } from './form.js';

type Field = import('./form.js').Field;

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
 * The fields for a schema's properties except `omit`.
 * @param js JSON Schema of an object
 * @param [group] the fold they are shown in
 */
export function paramFields(
  js: any,
  omit: string[],
  values?: unknown,
  group: string = 'Rule parameters',
): Field[] {
  const props = unwrap(js)?.properties ?? {};
  return Object.entries(props)
    .filter(([k]) => !omit.includes(k))
    .flatMap(([k, v]) => fieldsOf(v, k, values, words(k)))
    .map((f) => ({ ...f, group }));
}
