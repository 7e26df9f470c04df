/**
 * The configuration reference, docs/configuration-reference.md, written from the configuration schema
 * (`configSchema`, through zod's JSON Schema of its input): every key with its type, its default, the
 * values it allows and its description (`.describe()`). `npm run docs:config` writes it; a test fails
 * when the committed page differs from what this gives.
 */
import { z } from 'zod';
import { configSchema } from './schema.ts';

type Node = z.core.JSONSchema.JSONSchema;

export interface ReferenceRow {
  key: string;
  type: string;
  default: string;
  allowed: string;
  description: string;
}

interface Section {
  title: string;
  rows: ReferenceRow[];
}

/** A nested list of objects with more keys than this gets a section of its own. */
const OWN_SECTION_KEYS = 4;
const SAFE = Number.MAX_SAFE_INTEGER;

const node = (n: z.core.JSONSchema._JSONSchema | undefined): Node => (typeof n === 'object' ? n : {});
const code = (v: unknown): string => `\`${typeof v === 'string' ? v : JSON.stringify(v)}\``;
const isObject = (n: Node): boolean => n.type === 'object' && n.properties !== undefined;
const itemsOf = (n: Node): Node => node(Array.isArray(n.items) ? n.items[0] : n.items);

function typeOf(n: Node): string {
  if (n.anyOf) return [...new Set(n.anyOf.map(typeOf))].join(' or ');
  // One of several objects told apart by a key (a device's profile written out): an object.
  if (n.oneOf) return [...new Set(n.oneOf.map(typeOf))].join(' or ');
  if (n.enum) return typeof n.enum[0] === 'number' ? 'number' : 'string';
  if (n.const !== undefined) return typeof n.const;
  if (n.prefixItems) return `[${n.prefixItems.map((p) => typeOf(node(p))).join(', ')}]`;
  if (n.type === 'array') {
    const item = itemsOf(n);
    return `list of ${isObject(item) ? 'objects' : typeOf(item)}`;
  }
  if (n.type === 'string' && n.format === 'date-time') return 'ISO time';
  if (n.type === 'string' && n.format === 'email') return 'e-mail address';
  if (n.type === 'string' && n.format === 'uri') return 'URL';
  return typeof n.type === 'string' ? n.type : 'any';
}

function bounds(n: Node): string[] {
  const out: string[] = [];
  if (typeof n.exclusiveMinimum === 'number') out.push(`> ${n.exclusiveMinimum}`);
  if (n.minimum !== undefined && n.minimum > -SAFE) out.push(`>= ${n.minimum}`);
  if (typeof n.exclusiveMaximum === 'number') out.push(`< ${n.exclusiveMaximum}`);
  if (n.maximum !== undefined && n.maximum < SAFE) out.push(`<= ${n.maximum}`);
  if (n.minLength === 1) out.push('not empty');
  else if (n.minLength !== undefined) out.push(`at least ${n.minLength} characters`);
  if (n.maxLength !== undefined) out.push(`at most ${n.maxLength} characters`);
  // A format (ISO time, e-mail address, URL) says more than its pattern.
  if (n.pattern !== undefined && n.format === undefined) out.push(`matches ${code(n.pattern)}`);
  return out;
}

function allowedOf(n: Node): string {
  if (n.anyOf) {
    const consts = n.anyOf.filter((a) => a.const !== undefined).map((a) => code(a.const));
    const rest = n.anyOf.filter((a) => a.const === undefined).map(allowedOf);
    return [...consts, ...rest].filter((s) => s !== '').join(' or ');
  }
  if (n.enum) return n.enum.map(code).join(', ');
  if (n.const !== undefined) return code(n.const);
  if (n.prefixItems) {
    const each = n.prefixItems.map((p) => allowedOf(node(p)) || 'any');
    return each.every((e) => e === 'any') ? '' : `[${each.join(', ')}]`;
  }
  if (n.type === 'array') {
    const own = [
      ...(n.minItems !== undefined ? [`at least ${n.minItems}`] : []),
      ...(n.maxItems !== undefined ? [`at most ${n.maxItems}`] : []),
    ];
    const item = allowedOf(itemsOf(n));
    return [...own, ...(item ? [`each ${item}`] : [])].join('; ');
  }
  return bounds(n).join(', ');
}

/**
 * A key's schema as written (`input`: its type, whether it is required) and as parsed (`output`: its
 * default, which the input side leaves out where a transform lies below it, as under `devices`).
 */
interface Pair {
  input: Node;
  output: Node;
}

const child = (p: Pair, name: string): Pair => ({
  input: node(p.input.properties?.[name]),
  output: node(p.output.properties?.[name]),
});
const items = (p: Pair): Pair => ({ input: itemsOf(p.input), output: itemsOf(p.output) });

function defaultOf({ input, output }: Pair, required: boolean): string {
  const value = input.default ?? output.default;
  if (value === undefined) return required ? 'required' : '';
  if (isObject(input) && JSON.stringify(value) === '{}') return "its keys' defaults";
  return code(value);
}

function row(key: string, p: Pair, required: boolean): ReferenceRow {
  return {
    key: code(key),
    type: typeOf(p.input),
    default: defaultOf(p, required),
    allowed: allowedOf(p.input),
    description: p.input.description ?? '',
  };
}

/** The rows of an object's keys under `prefix`; nested lists of many-keyed objects go to `sections`. */
function walk(obj: Pair, prefix: string, rows: ReferenceRow[], sections: Section[]): void {
  const required = new Set(obj.input.required ?? []);
  for (const name of Object.keys(obj.input.properties ?? {})) {
    const p = child(obj, name);
    const key = `${prefix}${name}`;
    rows.push(row(key, p, required.has(name)));
    if (isObject(p.input)) walk(p, `${key}.`, rows, sections);
    else if (p.input.type === 'array' && isObject(itemsOf(p.input))) {
      if (Object.keys(itemsOf(p.input).properties ?? {}).length > OWN_SECTION_KEYS) {
        const own: Section = { title: `${key}[]`, rows: [] };
        sections.push(own);
        walk(items(p), `${key}[].`, own.rows, sections);
      } else walk(items(p), `${key}[].`, rows, sections);
    }
  }
}

/** The reference's sections: the top-level scalars, then one per top-level object or list of objects. */
export function referenceSections(): Section[] {
  const root: Pair = {
    input: z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }),
    output: z.toJSONSchema(configSchema, { io: 'output', unrepresentable: 'any' }),
  };
  const top: Section = { title: 'Top level', rows: [] };
  const sections: Section[] = [top];
  const required = new Set(root.input.required ?? []);
  for (const name of Object.keys(root.input.properties ?? {})) {
    const p = child(root, name);
    const list = p.input.type === 'array';
    if (!isObject(list ? itemsOf(p.input) : p.input)) {
      top.rows.push(row(name, p, required.has(name)));
      continue;
    }
    const section: Section = { title: list ? `${name}[]` : name, rows: [row(name, p, required.has(name))] };
    sections.push(section);
    const nested: Section[] = [];
    walk(list ? items(p) : p, list ? `${name}[].` : `${name}.`, section.rows, nested);
    sections.push(...nested);
  }
  return sections;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** A Markdown table laid out as the formatter lays it out (columns padded, at least 3 wide). */
export function table(header: string[], body: string[][]): string {
  const cells = [header, ...body].map((r) => r.map(cell));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const [head, ...rest] = cells;
  return [line(head!), line(widths.map((w) => '-'.repeat(w))), ...rest.map(line)].join('\n');
}

/** Keys with no description (each should have one). */
export function undescribedKeys(): string[] {
  return referenceSections().flatMap((s) => s.rows.filter((r) => r.description === '').map((r) => r.key));
}

export function configReference(): string {
  const parts = [
    '# Configuration reference',
    'Every key of the configuration file, with its type, its default, the values it allows and what it does, ' +
      'written from the configuration schema by `npm run docs:config` (a test fails when this page and the ' +
      'schema differ). The guide, with an example of every section and the environment variables: ' +
      '[configuration.md](configuration.md).',
    'A key is optional unless its default says `required`; an empty default means none (the feature is off, ' +
      "or the gateway derives the value as the description says). A section whose default is its keys' " +
      'defaults may be left out. `x[]` is a list: `x[].y` is the key `y` of each of its entries. The rules add ' +
      "their parameters to `sites[]` and `sites[].devices[]`; each rule's README (`gateway/src/rules/`) " +
      'quotes the law they come from.',
  ];
  for (const s of referenceSections()) {
    parts.push(`## ${s.title === 'Top level' ? s.title : `\`${s.title}\``}`);
    parts.push(
      table(
        ['key', 'type', 'default', 'allowed', 'description'],
        s.rows.map((r) => [r.key, r.type, r.default, r.allowed, r.description]),
      ),
    );
  }
  return `${parts.join('\n\n')}\n`;
}
