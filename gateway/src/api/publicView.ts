/**
 * The public view (`http.publicView`): what a visitor who is not signed in may see, as a neighbour may.
 * Sites with their names and devices, the duties' states, storms, charts, readings and the rules; never
 * a party's name, postal or e-mail address, a photo, an inspection, a notice or a report. Routes not
 * listed here refuse such a visitor (401); these answer the same shapes with the private parts left out.
 */
import type { AlertDto } from '../../../shared/src/api/alerts.ts';
import type { SiteView } from '../../../shared/src/api/sites.ts';

/** The routes the public view answers; every other read needs a signed-in person or a token. */
export const PUBLIC_VIEW_ROUTES = [
  'GET /api/sites',
  'GET /api/sites/:id',
  'GET /api/alerts',
  'GET /api/alerts/:id',
  'GET /api/storms',
  'GET /api/charts',
  'GET /api/telemetry',
  'GET /api/rules',
  'GET /api/evidence/key',
  'GET /api/health',
] as const;

/**
 * A site as the public sees it: its name, kind, time zone and devices (how each connects, in kind only).
 * Not its landowner or developer, its address, its history, its practices, its stop-work order or the
 * reasons for its figures.
 */
export function publicSite(s: SiteView): SiteView {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    timezone: s.timezone,
    active: s.active,
    retiredDevices: s.retiredDevices,
    // How a device connects, in kind only: not its DevEUI, nor where it sits on a bus or an adapter.
    devices: s.devices.map(({ devEui: _e, modbus: _m, sdi12: _s, ...d }) => d),
  };
}

/**
 * A duty as the public sees it: its rule, state and times, and the rule's sentence. Not who acknowledged
 * or closed it, its evidence (inspections, haulers, notes) or its history (names and notes).
 */
export function publicAlert(a: AlertDto): AlertDto {
  return {
    id: a.id,
    rule: a.rule,
    siteId: a.siteId,
    ...(a.deviceId !== undefined ? { deviceId: a.deviceId } : {}),
    status: a.status,
    overdue: a.overdue,
    raisedAt: a.raisedAt,
    dueAt: a.dueAt,
    ...(a.originalDueAt !== undefined ? { originalDueAt: a.originalDueAt } : {}),
    ...(a.acknowledgedAt !== undefined ? { acknowledgedAt: a.acknowledgedAt } : {}),
    ...(a.resolvedAt !== undefined ? { resolvedAt: a.resolvedAt } : {}),
    ...(a.withinDeadline !== undefined ? { withinDeadline: a.withinDeadline } : {}),
    ...(a.alarm !== undefined ? { alarm: a.alarm } : {}),
    message: a.message,
    evidence: {},
    history: [],
  };
}
