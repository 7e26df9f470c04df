import type { ExpectedAlertSpec, NoAlertSpec } from './scenario/schema.ts';
import { iso, resolveInstant } from './util/time.ts';

/** An alert as `GET /api/alerts` returns it (the fields the checker reads). */
export interface ApiAlert {
  id: string;
  rule: string;
  siteId: string;
  deviceId?: string | null;
  status: string;
  overdue?: boolean;
  raisedAt?: string;
  dueAt?: string | null;
  message?: string;
}

export type StatusFilter = 'open' | 'acknowledged' | 'resolved' | 'active' | 'any';

export interface ExpectedAlert {
  siteId: string;
  rule: string;
  deviceId?: string;
  count: number;
  /** Epoch ms; at least one matching alert must be due within the tolerance. */
  dueAt?: number;
  dueToleranceMs?: number;
  status?: StatusFilter;
}

export interface ForbiddenAlert {
  siteId?: string;
  rule: string;
  deviceId?: string;
  status?: StatusFilter;
  why?: string;
}

export interface Expectations {
  alerts: ExpectedAlert[];
  noAlerts: ForbiddenAlert[];
}

export interface Comparison {
  ok: boolean;
  /** Each difference, in words. */
  problems: string[];
  /** Each expectation met, in words. */
  met: string[];
  /** Alerts at the expected sites whose rule the scenario does not mention (reported, not a failure). */
  unmentioned: ApiAlert[];
}

/** Turns the scenario's `expect` block into concrete expectations for a run that started at `start`. */
export function resolveExpectations(
  expect: { alerts: ExpectedAlertSpec[]; noAlerts: NoAlertSpec[] },
  start: number,
): Expectations {
  return {
    alerts: expect.alerts.map((a) => ({
      siteId: a.siteId,
      rule: a.rule,
      ...(a.deviceId ? { deviceId: a.deviceId } : {}),
      count: a.count,
      ...(a.dueAt ? { dueAt: resolveInstant(a.dueAt, start) } : {}),
      dueToleranceMs: a.dueToleranceSeconds * 1000,
      status: a.status,
    })),
    noAlerts: expect.noAlerts.map((n) => ({ ...n })),
  };
}

function statusMatches(filter: StatusFilter | undefined, status: string): boolean {
  if (!filter || filter === 'any') return true;
  if (filter === 'active') return status === 'open' || status === 'acknowledged';
  return status === filter;
}

function describe(e: { siteId?: string; rule: string; deviceId?: string; status?: StatusFilter }): string {
  const where = [e.siteId ?? '*', e.deviceId].filter(Boolean).join('/');
  const st = e.status && e.status !== 'any' ? ` (${e.status})` : '';
  return `${e.rule}${st} at ${where}`;
}

function brief(a: ApiAlert): string {
  return `${a.rule} ${a.siteId}${a.deviceId ? `/${a.deviceId}` : ''} ${a.status}${a.dueAt ? ` due ${a.dueAt}` : ''} [${a.id}]`;
}

/** Compares expected alerts with the gateway's alerts. Pure. */
export function compareAlerts(expected: Expectations, actual: readonly ApiAlert[]): Comparison {
  const problems: string[] = [];
  const met: string[] = [];
  for (const e of expected.alerts) {
    const matching = actual.filter(
      (a) =>
        a.siteId === e.siteId &&
        a.rule === e.rule &&
        (e.deviceId === undefined || a.deviceId === e.deviceId) &&
        statusMatches(e.status, a.status),
    );
    const label = describe(e);
    if (matching.length !== e.count) {
      problems.push(
        `${label}: expected ${e.count}, got ${matching.length}${matching.length ? `: ${matching.map(brief).join('; ')}` : ''}`,
      );
      continue;
    }
    if (e.dueAt !== undefined && e.count > 0) {
      const tol = e.dueToleranceMs ?? 120_000;
      const dues = matching.map((a) => (a.dueAt ? Date.parse(a.dueAt) : Number.NaN));
      const hit = dues.some((d) => Number.isFinite(d) && Math.abs(d - e.dueAt!) <= tol);
      if (!hit) {
        const got = dues.map((d) => (Number.isFinite(d) ? iso(d) : 'none')).join(', ');
        const off = dues
          .filter(Number.isFinite)
          .map((d) => `${((d - e.dueAt!) / 60_000).toFixed(1)} min`)
          .join(', ');
        problems.push(
          `${label}: expected due ${iso(e.dueAt)} (±${tol / 1000} s), got ${got}${off ? ` (off by ${off})` : ''}`,
        );
        continue;
      }
    }
    met.push(`${label}: ${e.count}${e.dueAt !== undefined ? ` due ${iso(e.dueAt)}` : ''}`);
  }
  for (const n of expected.noAlerts) {
    const matching = actual.filter(
      (a) =>
        (n.siteId === undefined || a.siteId === n.siteId) &&
        a.rule === n.rule &&
        (n.deviceId === undefined || a.deviceId === n.deviceId) &&
        statusMatches(n.status, a.status),
    );
    if (matching.length)
      problems.push(
        `${describe(n)}: expected none${n.why ? ` (${n.why})` : ''}, got ${matching.map(brief).join('; ')}`,
      );
    else met.push(`no ${describe(n)}`);
  }
  const sites = new Set(expected.alerts.map((e) => e.siteId));
  for (const n of expected.noAlerts) if (n.siteId) sites.add(n.siteId);
  const mentioned = (a: ApiAlert) =>
    expected.alerts.some((e) => e.siteId === a.siteId && e.rule === a.rule) ||
    expected.noAlerts.some((n) => (n.siteId === undefined || n.siteId === a.siteId) && n.rule === a.rule);
  const unmentioned = actual.filter((a) => sites.has(a.siteId) && !mentioned(a));
  return { ok: problems.length === 0, problems, met, unmentioned };
}

/** A readable report of a comparison: `+` met, `-` differs, `?` not mentioned by the scenario. */
export function formatComparison(c: Comparison): string {
  const lines = [
    ...c.met.map((m) => `  + ${m}`),
    ...c.problems.map((p) => `  - ${p}`),
    ...c.unmentioned.map((a) => `  ? not in the scenario: ${brief(a)}`),
  ];
  return `${c.ok ? 'alerts match the scenario' : 'alerts DIFFER from the scenario'}\n${lines.join('\n')}`;
}
