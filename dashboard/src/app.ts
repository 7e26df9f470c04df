/** The dashboard: routing between views, who is signed in, live updates. */

import { ApiError, describeError, errorDetail } from './api.js';
import { sessionChanged, showInspectionForm, sitesChanged, startField } from './field-loader.js';
import { connectLive } from './live.js';
import { loadAgenda } from './pages/agenda/agenda.js';
import {
  alertChangedForTable,
  initAlertFilters,
  loadAlerts,
  openAlert,
  refreshAlertRow,
  renderAlertsTable,
} from './pages/alerts/alerts.js';
import { loadFleet, renderFleetAlerts, renderFleetOverview } from './pages/fleet/fleet.js';
import { showEvidenceKey } from './pages/overview/evidence-key.js';
import { renderOverview } from './pages/overview/overview.js';
import { bindSignIn, renderAccount } from './pages/signin/signin.js';
import { currentSiteId, loadSite } from './pages/site/site.js';
import { initStormSites, loadStorms, showsStormsOf, stormSite } from './pages/storms/storms.js';
import { isAdmin, notSignedIn, onSessionChange, probeGateway, refreshMe, session } from './session.js';
import {
  state as appState,
  changed,
  deviceOf,
  loadAll,
  onChange,
  ruleLabel,
  siteById,
  upsertAlert,
} from './state.js';
import {
  alertChangedForDialog,
  lastShownAlertId,
  onAlertActed,
  openAlert as openAlertDialog,
  refreshDialog,
  shownAlertId,
} from './ui/alert-dialog.js';
import { bindDialogs } from './ui/dialogs.js';
import { byId } from './ui/dom.js';
import { bindMenu, toast } from './ui/header.js';
import { inPublicView, learnGateway, markPublicView, PUBLIC_VIEWS } from './ui/public-view.js';

export type Alert = import('./state.js').Alert;

/**
 * What the inspection form (`/field.js`, bundled apart) takes from the page: one API session, one set
 * of sites, one store on the phone (gateway/src/api/dashboardBundle.ts names these modules).
 */
export * from './api.js';
export * from './field-copy.js';
export * from './session.js';
export * from './state.js';
export * from './ui/dom.js';
export * from './ui/format.js';
export * from './waiting.js';

const VIEWS = [
  'overview',
  'alerts',
  'storms',
  'inspect',
  'agenda',
  'site',
  'signin',
  'people',
  'manage',
  'devices',
  'changes',
  'quarantine',
  'tokens',
  'inspection',
];
/** Views for admins only. */
const ADMIN_VIEWS = new Set(['people', 'manage', 'devices', 'changes', 'quarantine']);
const TITLES = {
  signin: 'Sign in',
  people: 'People',
  manage: 'Sites and devices',
  devices: 'Devices',
  changes: 'Change records',
  quarantine: 'Quarantine',
  tokens: 'My API tokens',
  inspection: 'Inspection',
} as Record<string, string>;
let view = 'overview';

const timers: Map<string, ReturnType<typeof setTimeout>> = new Map();
/**
 * Runs `fn` once, `ms` after the last call with the same key.
 */
function debounce(key: string, ms: number, fn: () => void) {
  clearTimeout(timers.get(key));
  timers.set(
    key,
    setTimeout(() => {
      timers.delete(key);
      fn();
    }, ms),
  );
}

/** Other names of views in links: #/sites/<id> is a site's page, as #/site/<id> is; #/inspections/<id> one inspection's. */
const ALIASES: Record<string, string> = { sites: 'site', alert: 'alerts', inspections: 'inspection' };

function parseRoute() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const first = ALIASES[parts[0] ?? ''] ?? parts[0] ?? '';
  const name = VIEWS.includes(first) ? first : 'overview';
  return { name, arg: parts[1] ?? '', more: parts[2] ?? '' };
}

/** The overview; in the public view its duties open nothing. */
const showOverview = () => renderOverview(inPublicView() ? undefined : openAlert);

async function route() {
  let { name, arg, more } = parseRoute();
  if (inPublicView() && !PUBLIC_VIEWS.has(name)) {
    name = 'overview';
    history.replaceState(null, '', '#/overview');
  }
  // Admin pages for admins only, tokens for a person signed in: anyone else is shown the sign-in page.
  if ((ADMIN_VIEWS.has(name) && !isAdmin(session.me)) || (name === 'tokens' && session.me?.via !== 'session'))
    name = session.me ? 'overview' : 'signin';
  view = name;
  markPublicView(name);
  for (const v of VIEWS) byId(`view-${v}`).hidden = v !== name;
  for (const a of document.querySelectorAll('nav.tabs a')) {
    const target = a.getAttribute('href')?.slice(2);
    if (target === name || (name === 'devices' && target === 'manage'))
      a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const title =
    name === 'site' ? (siteById(arg)?.name ?? arg) : (TITLES[name] ?? name[0]?.toUpperCase() + name.slice(1));
  document.title = `${title} · Compliance gateway`;
  if (name === 'signin') {
    (byId('signin-email') as HTMLInputElement).focus();
    return;
  }
  if (name === 'inspect') {
    await showInspectionForm(arg, more);
    return;
  }
  if (!appState.loaded) return;
  if (name === 'overview') {
    showOverview();
    renderFleetOverview();
    void showEvidenceKey();
  } else if (name === 'alerts') {
    // #/alerts/<id>: the alert's dialog over the list (its link, to share or bookmark).
    if (arg && shownAlertId() !== arg) void openAlertDialog(arg);
    await loadAlerts();
    renderFleetAlerts();
  } else if (name === 'storms') {
    if (arg && siteById(arg)) (byId('s-site') as HTMLSelectElement).value = arg;
    await loadStorms();
  } else if (name === 'agenda') await loadAgenda();
  else if (name === 'site') {
    if (arg) await loadSite(arg);
  }
  // Pages few people open (an administrator's) load with their first visit.
  else if (name === 'people') await (await import('./pages/people/people.js')).loadPeople();
  else if (name === 'changes') {
    const changes = await import('./pages/changes/changes.js');
    changes.initChangeFilters();
    await changes.loadChanges();
  } else if (name === 'manage')
    await (await import('./pages/manage-sites/manage-sites.js')).loadManageSites();
  else if (name === 'devices') await (await import('./pages/devices/devices.js')).loadDevices(arg);
  else if (name === 'quarantine') await (await import('./pages/quarantine/quarantine.js')).loadQuarantine();
  else if (name === 'tokens') await (await import('./pages/tokens/tokens.js')).loadTokens();
  else if (name === 'inspection' && arg)
    await (await import('./pages/inspection/inspection.js')).loadInspection(arg);
}

function initForms() {
  initAlertFilters();
  initStormSites();
  sitesChanged();
}

async function reloadAll() {
  const summary = byId('overview-summary');
  try {
    // The public view has no followed gateways to show (their view is a signed-in person's).
    await Promise.all([loadAll(), inPublicView() ? undefined : loadFleet()]);
    initForms();
    await route();
  } catch (e) {
    summary.textContent = describeError(e);
    summary.title = errorDetail(e);
    summary.className = 'text-bad';
    // Reads need a sign-in here: the sign-in page, not an empty overview, and no live feed to retry.
    if (e instanceof ApiError && e.status === 401 && !session.me) {
      live?.close();
      live = undefined;
      showLive('signed-out', '');
      if (parseRoute().name !== 'signin') location.hash = '#/signin';
      else await route();
    }
  }
}

let live: { close: () => void } | undefined;
function openLive() {
  live?.close();
  live = connectLive({ onEvent: onLive, onState: showLive, onReconnected: () => void reloadAll() });
}

/** Signed in, out, or a token changed: what the page shows is read again, as this person. */
function identityChanged() {
  appState.loaded = false;
  if (notSignedIn()) {
    live?.close();
    live = undefined;
    showLive(inPublicView() ? 'public' : 'signed-out', '');
    if (inPublicView()) void reloadAll();
    return;
  }
  openLive();
  void reloadAll();
}

function showLive(s: 'connecting' | 'live' | 'reconnecting' | 'signed-out' | 'public', detail: string) {
  const el = byId('live');
  el.dataset.state = s;
  const text = {
    connecting: 'Connecting…',
    live: 'Live',
    reconnecting: 'Reconnecting…',
    'signed-out': 'Sign in to see the sites',
    public: 'Public view',
  }[s];
  byId('live-text').textContent = detail ? `${text} (${detail})` : text;
}

function onLive(type: string, data: any) {
  if (type === 'alert') {
    const a: Alert = data.alert;
    upsertAlert(a);
    changed();
    if (view === 'alerts') alertChangedForTable(a);
    alertChangedForDialog(a);
    // The live feed's copy lacks the evidence in words and the alarm's state: read the alert again.
    if (view === 'alerts' || shownAlertId() === a.id)
      debounce(`alert-${a.id}`, 1000, () => void refreshShown(a.id));
    if (data.action === 'raised')
      toast(
        `New alert: ${ruleLabel(a.rule)} at ${siteById(a.siteId)?.name ?? a.siteId}${a.deviceId ? ` (${a.deviceId})` : ''}`,
      );
    if (view === 'site' && currentSiteId === a.siteId) debounce('site', 1000, () => void loadSite(a.siteId));
  } else if (type === 'readings') {
    const now = new Date().toISOString();

    const sites: Set<string> = new Set();
    for (const r of data.latest ?? []) {
      const d = deviceOf(r.siteId, r.deviceId);
      if (!d) continue;
      if (!d.lastReadingAt || Date.parse(r.ts) > Date.parse(d.lastReadingAt)) d.lastReadingAt = r.ts;
      d.lastReceivedAt = now;
      sites.add(r.siteId);
    }
    changed();
    if (view === 'site' && currentSiteId && sites.has(currentSiteId)) {
      const id = currentSiteId;
      debounce('site', 3000, () => void loadSite(id));
    }
  } else if (type === 'device-status') {
    const d = deviceOf(data.siteId, data.deviceId);
    if (d) {
      d.status = data.status;
      d.statusAt = data.at;
      changed();
    }
    if (view === 'site' && currentSiteId === data.siteId)
      debounce('site', 1000, () => void loadSite(data.siteId));
  } else if (type === 'storm') {
    if (view === 'storms' && showsStormsOf(data.siteId)) debounce('storms', 1000, () => void loadStorms());
  } else if (type === 'inspection') {
    toast(`Inspection recorded at ${siteById(data.siteId)?.name ?? data.siteId} by ${data.inspector}`);
    if (view === 'storms' && showsStormsOf(data.siteId)) debounce('storms', 500, () => void loadStorms());
  }
}

/** Reads an alert again for its row and, when it is shown, its dialog. */
async function refreshShown(id: string) {
  try {
    if (view === 'alerts') await refreshAlertRow(id);
    await refreshDialog(id);
  } catch (e) {
    console.warn('reading the alert again failed', e);
  }
}

/**
 * Set while the page waits for the gateway it could not reach: once who is signed in is known again
 * (`probeGateway`), the page is read again, as that person.
 */
let readAgain = false;

/** Back online after the page opened without a connection: who is signed in, and the page, read again. */
function backOnline() {
  if (session.me && appState.loaded) return;
  if (!session.unreached) return void reloadAll();
  readAgain = true;
  probeGateway(true);
}

/** The gateway answers again: the live feed and the page, read again (a 401 has shown the sign-in page). */
function reached() {
  if (!readAgain || session.unreached || !session.me) return;
  readAgain = false;
  openLive();
  void reloadAll();
}

function start() {
  window.addEventListener('online', () => backOnline());
  bindDialogs();
  bindMenu();
  onAlertActed((a) => {
    if (view === 'alerts') alertChangedForTable(a);
  });
  bindSignIn({
    afterSignIn: () => {
      if (parseRoute().name === 'signin') location.hash = '#/overview';
      identityChanged();
    },
    afterSignOut: () => {
      location.hash = '#/signin';
      identityChanged();
    },
  });
  onSessionChange(() => {
    renderAccount();
    markPublicView(view);
    sessionChanged();
    if (session.expired && parseRoute().name !== 'signin') location.hash = '#/signin';
    reached();
  });
  startField();
  onChange(() => {
    if (view === 'overview') debounce('overview', 150, () => showOverview());
  });
  for (const id of ['f-site', 'f-status', 'f-rule', 'f-overdue'])
    byId(id).addEventListener('change', () => void loadAlerts());
  byId('alerts-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    void loadAlerts();
  });
  byId('changes-filters').addEventListener('submit', (e) => {
    e.preventDefault();
    void import('./pages/changes/changes.js').then((c) => c.loadChanges());
  });
  byId('s-site').addEventListener('change', () => {
    history.replaceState(null, '', `#/storms/${encodeURIComponent(stormSite())}`);
    void loadStorms();
  });
  byId('site-range').addEventListener('change', () => {
    if (currentSiteId) void loadSite(currentSiteId);
  });
  const dialog = byId('alert-dialog') as HTMLDialogElement;
  byId('alert-close').addEventListener('click', () => dialog.close());
  dialog.addEventListener('click', (e) => {
    if (e.target === dialog) dialog.close();
  });
  // Closed, the alert's link leaves the address bar: a reload shows the list, not the dialog again. The
  // close event comes after the click: by then the address may name another alert, which is left alone.
  dialog.addEventListener('close', () => {
    const { name, arg } = parseRoute();
    if (!dialog.open && name === 'alerts' && arg && arg === lastShownAlertId())
      history.replaceState(null, '', '#/alerts');
  });
  window.addEventListener('hashchange', () => {
    void route();
    byId('main').focus({ preventScroll: true });
  });
  setInterval(() => {
    if (view === 'overview') showOverview();
    else if (view === 'alerts') renderAlertsTable();
  }, 30_000);
  setInterval(() => {
    if (!notSignedIn() || inPublicView())
      void loadAll().catch((e) => console.warn('refreshing the sites and alerts failed', e));
  }, 5 * 60_000);
  // Followed gateways publish at least every minute; their view is fetched again as often.
  setInterval(
    () =>
      !notSignedIn() &&
      void loadFleet()
        .then(() => {
          if (view === 'overview') renderFleetOverview();
          else if (view === 'alerts') renderFleetAlerts();
        })
        .catch((e) => console.warn('fleet view not refreshed', e)),
    30_000,
  );
  renderAccount();
  // Who is signed in, and what the gateway tells anyone (its public view, its zone), at once.
  void Promise.all([
    refreshMe().catch((e) => {
      console.warn('reading /api/auth/me failed', e);
      // The gateway cannot be reached: the page opens as far as this phone can, and waits for it.
      readAgain = true;
      probeGateway();
    }),
    learnGateway(),
  ]).then(async () => {
    // Nobody signed in: the public view where the gateway offers it, else nothing is asked for until
    // someone signs in (reads need a sign-in).
    if (inPublicView()) {
      showLive('public', '');
      await reloadAll();
      return;
    }
    if (notSignedIn()) {
      showLive('signed-out', '');
      if (parseRoute().name !== 'signin') location.hash = '#/signin';
      else await route();
      return;
    }
    openLive();
    await route();
    await reloadAll();
  });
}

start();
