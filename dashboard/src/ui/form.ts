/**
 * Forms that validate with the API's own zod schemas (bundled by the gateway as /schemas.js) and show
 * every problem next to its field, the gateway's own refusals too.
 */
import { ApiError, describeError } from '../api.js';
import { type Child, h, replace } from './dom.js';

export type FieldType =
  | 'text'
  | 'email'
  | 'password'
  | 'number'
  | 'select'
  | 'checkbox'
  | 'json'
  | 'datetime'
  | 'checks'
  | 'lines';

export type Field = {
  name: string;
  label: string;
  type?: FieldType;
  options?: Array<[string, string]>;
  hint?: string;
  value?: unknown;
  placeholder?: string;
  step?: string;
  group?: string;
  when?: (values: Record<string, unknown>) => boolean;
};

export type Schema = {
  safeParse: (v: unknown) => {
    success: boolean;
    error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
  };
};

/** Served by the gateway beside the page, outside this bundle: the API's body schemas and the rules' parameters. */
const SCHEMAS_URL = '/schemas.js';
let loading: Promise<Record<string, any> | null> | undefined;
/** The API's schemas, or null when they cannot be had (the gateway still validates every request). */
export function schemas() {
  loading ??= (import(SCHEMAS_URL) as Promise<Record<string, any>>).catch((e) => {
    console.warn('the API schemas could not be loaded; forms are checked by the gateway only', e);
    return null;
  });
  return loading;
}

/**
 * The first schema the bundle exports under one of `names`.
 */
export async function schemaNamed(...names: string[]): Promise<Schema | undefined> {
  const s = await schemas();
  for (const n of names) if (s?.[n] && typeof s[n].safeParse === 'function') return s[n];
  return undefined;
}

export function pathName(path: readonly PropertyKey[]) {
  return path.map(String).join('.');
}

const slug = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, '-');

/**
 * @param name dotted path
 */
function setPath(obj: Record<string, unknown>, name: string, v: unknown) {
  const keys = name.split('.');

  let o: any = obj;
  for (const k of keys.slice(0, -1)) o = o[k] ??= {};
  o[keys.at(-1) as string] = v;
}

export function getPath(obj: unknown, name: string): unknown {
  let o: any = obj;
  for (const k of name.split('.')) o = o?.[k];
  return o;
}

function control(formId: string, f: Field) {
  const id = `${formId}-${slug(f.name)}`;
  const common = {
    id,
    name: f.name,
    'aria-describedby': `${id}-err${f.hint ? ` ${id}-hint` : ''}`,
    ...(f.placeholder ? { placeholder: f.placeholder } : {}),
  };
  if (f.type === 'select')
    return h(
      'select',
      common,
      (f.options ?? []).map(([v, label]) =>
        h('option', { value: v, selected: v === String(f.value ?? '') }, label),
      ),
    );
  if (f.type === 'checkbox') return h('input', { ...common, type: 'checkbox', checked: f.value === true });
  if (f.type === 'checks') {
    const chosen = new Set(Array.isArray(f.value) ? f.value.map(String) : []);
    return h(
      'fieldset',
      { ...common, class: 'checks' },
      h('legend', { class: 'sr-only' }, f.label),
      (f.options ?? []).length
        ? (f.options ?? []).map(([v, label]) =>
            h(
              'label',
              { class: 'check' },
              h('input', { type: 'checkbox', value: v, checked: chosen.has(v) }),
              ` ${label}`,
            ),
          )
        : h('span', { class: 'muted small' }, 'none to choose from'),
    );
  }
  if (f.type === 'lines')
    return h(
      'textarea',
      { ...common, rows: 3, spellcheck: 'false' },
      Array.isArray(f.value) ? f.value.map(String).join('\n') : '',
    );
  if (f.type === 'json')
    return h(
      'textarea',
      { ...common, rows: 3, spellcheck: 'false' },
      f.value === undefined ? '' : JSON.stringify(f.value),
    );
  const type = f.type === 'datetime' ? 'datetime-local' : (f.type ?? 'text');
  const value = f.value === undefined || f.value === null ? undefined : String(f.value);
  return h('input', {
    ...common,
    type,
    value,
    autocomplete: f.type === 'password' ? 'new-password' : 'off',
    ...(f.type === 'number' ? { step: f.step ?? 'any', inputmode: 'decimal' } : {}),
  });
}

function read(f: Field, el: HTMLElement): unknown {
  if (f.type === 'checkbox') return (el as HTMLInputElement).checked;
  if (f.type === 'checks')
    return [...el.querySelectorAll('input:checked')].map((i) => (i as HTMLInputElement).value);
  const raw = (el as HTMLInputElement).value.trim();
  if (raw === '') return undefined;
  if (f.type === 'number') return Number(raw);
  // One a line (or separated by commas), blanks dropped.
  if (f.type === 'lines')
    return raw
      .split(/[\n,]/)
      .map((x) => x.trim())
      .filter(Boolean);
  if (f.type === 'json') {
    try {
      return JSON.parse(raw);
    } catch {
      return { __badJson: raw };
    }
  }
  if (f.type === 'datetime') {
    const ms = Date.parse(raw);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : raw;
  }
  return raw;
}

/**
 * A form of fields with an error line under each. `submit` gets the values (nested by the dotted names)
 * once the schema accepts them; what it throws is shown, a 400's "path: message" parts by their fields.
 */
export type Schemas = Schema | undefined | Array<Schema | undefined>;
/**
 * @param {{id: string, fields: Field[], submitLabel: string, schema?: Schemas | (() => Promise<Schemas>),
 *   submit: (values: Record<string, any>) => Promise<string | void>, extra?: (values: Record<string, unknown>) => Record<string, unknown>,
 *   className?: string}} o
 */
export function buildForm(o: {
  id: string;
  fields: Field[];
  submitLabel: string;
  schema?: Schemas | (() => Promise<Schemas>);
  submit: (values: Record<string, any>) => Promise<string | undefined>;
  extra?: (values: Record<string, unknown>) => Record<string, unknown>;
  className?: string;
}) {
  const msg = h('p', { class: 'msg', id: `${o.id}-msg`, role: 'status', 'aria-live': 'polite' });
  const byName: Map<string, { f: Field; el: HTMLElement; err: HTMLElement; wrap: HTMLElement }> = new Map();
  const rows = o.fields.map((f) => {
    const el = control(o.id, f);
    const err = h('p', { class: 'field-error', id: `${el.id}-err`, hidden: true });
    const wrap = h(
      'div',
      { class: `field field-${f.type ?? 'text'}`, 'data-field': f.name },
      f.type === 'checkbox'
        ? h('label', { class: 'check' }, el, ` ${f.label}`)
        : [h('label', { for: el.id }, f.label), el],
      f.hint ? h('p', { class: 'small muted', id: `${el.id}-hint` }, f.hint) : null,
      err,
    );
    byName.set(f.name, { f, el, err, wrap });
    return wrap;
  });
  const button = h('button', { type: 'submit' }, o.submitLabel);
  const form = h(
    'form',
    { id: o.id, class: o.className ?? 'form card', novalidate: true },
    grouped(o.fields, rows),
    button,
    msg,
  ) as HTMLFormElement;

  const values = () => {
    const out: Record<string, unknown> = {};
    for (const { f, el, wrap } of byName.values()) {
      if (wrap.hidden) continue;
      const v = read(f, el);
      if (v !== undefined) setPath(out, f.name, v);
    }
    return out;
  };
  const showWhen = () => {
    const v = values();
    for (const { f, wrap } of byName.values()) if (f.when) wrap.hidden = !f.when(v);
  };
  form.addEventListener('change', showWhen);
  form.addEventListener('input', showWhen);
  showWhen();

  const clear = () => {
    for (const { el, err } of byName.values()) {
      err.hidden = true;
      err.textContent = '';
      el.removeAttribute('aria-invalid');
    }
    msg.textContent = '';
    msg.className = 'msg';
  };
  const show = (problems: Array<{ path: string; message: string }>) => {
    const rest: string[] = [];
    let first: HTMLElement | undefined;
    for (const p of problems) {
      let name = p.path;
      while (name && !byName.has(name)) name = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : '';
      const at = name ? byName.get(name) : undefined;
      if (!at || at.wrap.hidden) {
        rest.push(p.path ? `${p.path}: ${p.message}` : p.message);
        continue;
      }
      at.err.hidden = false;
      at.err.textContent = at.err.textContent ? `${at.err.textContent}; ${p.message}` : p.message;
      at.el.setAttribute('aria-invalid', 'true');
      const group = at.wrap.closest('details');
      if (group) (group as HTMLDetailsElement).open = true;
      first ??= at.el;
    }
    msg.className = 'msg msg-bad';
    msg.textContent = rest.length ? rest.join('; ') : 'Please correct the fields marked.';
    first?.focus();
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clear();
    const v = { ...values(), ...(o.extra?.(values()) ?? {}) };
    const bad: Array<{ path: string; message: string }> = [];
    for (const { f, wrap } of byName.values())
      if (!wrap.hidden && (getPath(v, f.name) as any)?.__badJson !== undefined)
        bad.push({ path: f.name, message: 'not valid JSON' });
    const found = typeof o.schema === 'function' ? await o.schema() : o.schema;
    for (const schema of [found].flat()) {
      const r = schema?.safeParse(v);
      if (r && !r.success)
        for (const i of r.error?.issues ?? []) bad.push({ path: pathName(i.path), message: i.message });
    }
    if (bad.length) return show(bad);
    button.setAttribute('disabled', '');
    try {
      const done = await o.submit(v);
      msg.className = 'msg msg-ok';
      msg.textContent = done ?? 'Saved.';
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) show(serverProblems(err.message));
      else {
        msg.className = 'msg msg-bad';
        msg.textContent = describeError(err);
      }
    } finally {
      button.removeAttribute('disabled');
    }
  });
  return { form, values, message: msg };
}

/**
 * Fields of one `group` in a row are folded together under its name.
 */
function grouped(fields: Field[], rows: HTMLElement[]) {
  const out: HTMLElement[] = [];

  let box: HTMLElement | undefined;
  fields.forEach((f, i) => {
    const row = rows[i] as HTMLElement;
    if (!f.group) {
      box = undefined;
      out.push(row);
      return;
    }
    if (box?.dataset.group !== f.group) {
      box = h('details', { class: 'group', 'data-group': f.group }, h('summary', null, f.group));
      out.push(box);
    }
    box.appendChild(row);
  });
  return out;
}

/**
 * The gateway's 400 message, "path: message; path: message", as problems by field.
 */
export function serverProblems(text: string) {
  return text.split('; ').map((part) => {
    const m = /^([A-Za-z0-9_.[\]]+|\(root\)): (.*)$/s.exec(part);
    if (!m) return { path: '', message: part };
    const path = m[1] === '(root)' ? '' : (m[1] as string).replace(/\[(\d+)\]/g, '.$1');
    return { path, message: m[2] as string };
  });
}

/**
 * A small table: a header row and one row per item.
 * @param [rowAttrs] each row's attributes
 */
export function table(
  head: string[],
  rows: Child[][],
  rowAttrs: (i: number) => Record<string, string> = () => ({}),
) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'stack' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          head.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h(
        'tbody',
        null,
        rows.length
          ? rows.map((r, i) =>
              h(
                'tr',
                rowAttrs(i),
                r.map((c, j) => h('td', { 'data-label': head[j] ?? '' }, h('div', null, c))),
              ),
            )
          : h('tr', null, h('td', { colspan: head.length, class: 'muted' }, 'None yet.')),
      ),
    ),
  );
}

/**
 * Shows a message in an element: kind ok, bad or none.
 */
export function say(el: HTMLElement, text: string, kind: 'ok' | 'bad' | '' = '') {
  el.textContent = text;
  el.className = `msg${kind ? ` msg-${kind}` : ''}`;
}

/**
 * Replaces a container's content with a loading line, then with what `load` renders, or the error.
 */
export async function fill(box: HTMLElement, load: () => Promise<Child>) {
  replace(box, h('p', { class: 'muted' }, 'Loading…'));
  try {
    replace(box, await load());
  } catch (e) {
    replace(box, h('p', { class: 'msg msg-bad' }, describeError(e)));
  }
}
