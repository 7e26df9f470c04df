/** A tiny DOM builder: text always goes through textContent, never through HTML parsing. */

/** Anything h() appends: text, a node, nothing, or a (nested) list of them. */
export type Child = string | number | Node | null | undefined | false | readonly Child[];

export type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>;

export function h(tag: string, attrs?: Attrs | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: readonly Child[]) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === 'object' ? (c as Node) : document.createTextNode(String(c)));
  }
}

/**
 * Replaces an element's children.
 */
export function replace(el: Element, ...children: Child[]) {
  el.replaceChildren();
  append(el, children);
}

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

const isBox = (f: Field): f is HTMLInputElement =>
  f instanceof HTMLInputElement && (f.type === 'checkbox' || f.type === 'radio');

/** What the person changed in a field (its value, or whether it is ticked), or undefined. */
function changedValue(f: Field): string | undefined {
  if (isBox(f)) return f.checked !== f.defaultChecked ? String(f.checked) : undefined;
  if (f instanceof HTMLSelectElement)
    return [...f.options].some((o) => o.selected !== o.defaultSelected) ? f.value : undefined;
  return f.value !== f.defaultValue ? f.value : undefined;
}

/**
 * Replaces an element's children, keeping what the person typed: a field of the new content with the id
 * of a field they changed gets its value back, and the one they were in gets the focus back. A page that
 * re-draws as the gateway answers (or as the live feed tells a change) loses no half-written note.
 */
export function replaceKeeping(el: Element, ...children: Child[]) {
  const typed = new Map<string, string>();
  for (const f of el.querySelectorAll<Field>('input[id], textarea[id], select[id]')) {
    const v = changedValue(f);
    if (v !== undefined) typed.set(f.id, v);
  }
  const active = document.activeElement;
  const focused = active && el.contains(active) && active.id ? active.id : undefined;
  replace(el, ...children);
  for (const [id, value] of typed) {
    const f = el.querySelector<Field>(`#${CSS.escape(id)}`);
    if (!f) continue;
    if (isBox(f)) f.checked = value === 'true';
    else f.value = value;
  }
  if (focused) el.querySelector<HTMLElement>(`#${CSS.escape(focused)}`)?.focus();
}

export function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el;
}

export const SITE_KINDS: Record<string, string> = {
  construction: 'Construction site',
  'alternative-system': 'Alternative septic system',
  septic: 'Septic system',
  'holding-tank': 'Holding tank',
};

/**
 * A status badge.
 */
export const badge = (text: string, kind: string) => h('span', { class: `badge badge-${kind}` }, text);

/**
 * A table cell with a label for the stacked phone layout; its content sits in one wrapper.
 */
export const cell = (label: string, ...content: Child[]) =>
  h('td', { 'data-label': label }, h('div', null, ...content));
