/** A tiny DOM builder: text always goes through textContent, never through HTML parsing. */

/**
 * @typedef {string | number | Node | null | undefined | false} Child
 * @typedef {Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>} Attrs
 */

/**
 * @param {string} tag
 * @param {Attrs | null} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), /** @type {EventListener} */ (v));
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/**
 * @param {Node} el
 * @param {Array<Child | Child[]>} children
 */
function append(el, children) {
  for (const c of children.flat(Number.POSITIVE_INFINITY)) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replaces an element's children.
 * @param {Element} el
 * @param {...(Child | Child[])} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/**
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el;
}

/** @type {Record<string, string>} */
export const SITE_KINDS = {
  construction: 'Construction site',
  'alternative-system': 'Alternative septic system',
  septic: 'Septic system',
  'holding-tank': 'Holding tank',
};

/**
 * A status badge.
 * @param {string} text
 * @param {string} kind
 */
export const badge = (text, kind) => h('span', { class: `badge badge-${kind}` }, text);
