/**
 * The page's side of the inspection form (`field.ts`, served apart as `/field.js` to keep the page's
 * own script small): loaded when the form is first shown, or at start and when the connection returns
 * if inspections wait on this phone to be sent.
 */

import { noConnection } from './session.js';
import { state } from './state.js';
import { byId } from './ui/dom.js';
import { waitingCount } from './waiting.js';

type Field = typeof import('./field.js');

let loading: Promise<Field> | undefined;
let loaded: Field | undefined;

function loadField(): Promise<Field> {
  loading ??= (import(new URL('./field.js', import.meta.url).href) as Promise<Field>).then((m) => {
    loaded = m;
    if (state.loaded) m.initInspectionForm();
    m.startOutbox();
    return m;
  });
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

/** The form's view: the form loaded, its sites filled in, the site (and kind) of the link chosen. */
export async function showInspectionForm(siteId: string, kind: string) {
  const m = await loadField();
  // Opened without a connection, the form has the sites this phone kept (`field-copy.ts`), if any;
  // online, it waits for the page's own.
  if (!state.loaded && !noConnection()) return;
  if (state.loaded) m.initInspectionForm();
  if (siteId) m.presetInspectionSite(siteId, kind);
}

/** The sites were read again: the form, if loaded, follows. */
export function sitesChanged() {
  loaded?.initInspectionForm();
}

/** Signed in or out: the form's inspector, and a chance to send what waits. */
export function sessionChanged() {
  loaded?.outboxChance();
}

/**
 * The service worker keeps a copy of the page, so that it opens in the field without a connection (it
 * needs a secure origin: HTTPS, or this machine).
 */
function keepPageForTheField() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker
    .register('/sw.js')
    .catch((e) => console.warn('the page cannot be kept for use without a connection', e));
}

/** Loads the form if inspections wait on this phone (it sends them). */
function ifWaiting() {
  if (loaded) return;
  void waitingCount()
    .then((n) => (n > 0 ? loadField() : undefined))
    .catch((e) => console.warn('the inspections waiting on this phone could not be read', e));
}

export function startField() {
  keepPageForTheField();
  // Until the form's code is there, a tap on its button does not reload the page.
  byId('inspect-form').addEventListener('submit', (e) => e.preventDefault());
  window.addEventListener('online', ifWaiting);
  ifWaiting();
}
