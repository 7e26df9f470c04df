/**
 * What the alert dialog offers (dashboard/src/ui/alert-actions.ts): only what the rule and the person's role
 * allow, and for the rest the reason in words.
 */
import { describe, expect, it } from 'vitest';
import type { Me } from '../../dashboard/src/session.ts';
import type { Alert, Rule } from '../../dashboard/src/state.ts';
import type { AllowedActions } from '../../dashboard/src/ui/alert-actions.ts';

const modulePath = '../../dashboard/src/ui/alert-actions.ts';
const { allowedActions } = (await import(modulePath)) as {
  allowedActions(a: Alert, rule: Rule | undefined, me: Me | null): AllowedActions;
};

const rule = (over: Partial<Rule>): Rule => ({
  id: 'a-rule',
  module: 'a-rule',
  label: 'A rule',
  description: 'What it asks.',
  law: '000, 1.000',
  duty: true,
  extendable: false,
  noExtension: 'A routine inspection cannot be extended: the law sets the interval.',
  meetsInspections: ['routine'],
  measure: 'work',
  meetsSides: ['developer'],
  everyPractice: true,
  responsible: [],
  section: 'routine',
  lawFigures: [],
  siteParams: { kinds: [], params: [] },
  ...over,
});
const alert = (over: Partial<Alert>): Alert => ({
  id: '01ALERT',
  rule: 'a-rule',
  siteId: 'maple-ridge',
  status: 'open',
  overdue: false,
  raisedAt: '2026-12-01T00:00:00.000Z',
  dueAt: '2026-12-08T00:00:00.000Z',
  message: 'Due.',
  evidence: {},
  history: [],
  ...over,
});
const me = (role: Me['role']): Me => ({ name: 'Pat Officer', role, via: 'session' });
const why = (x: { ok: boolean; why?: string }) => (x.ok ? 'offered' : x.why);

describe('the actions the alert dialog offers', () => {
  it("offers no Extend where the rule allows none, with the rule's reason", () => {
    const a = allowedActions(alert({}), rule({}), me('admin'));
    expect(why(a.extend)).toBe('A routine inspection cannot be extended: the law sets the interval.');
    expect([a.acknowledge.ok, a.resolve.ok, a.inspect.ok]).toEqual([true, true, true]);
  });

  it("offers no Resolve where only something else closes the duty, with the rule's words", () => {
    const closes = 'This duty closes when the officer approves the correction, not by hand.';
    const a = allowedActions(alert({}), rule({ noManualResolve: closes }), me('admin'));
    expect(why(a.resolve)).toBe(closes);
    expect(a.acknowledge.ok).toBe(true);
  });

  it('offers Extend where the rule allows it, to an engineer or an admin only', () => {
    const remedy = rule({ extendable: true, meetsInspections: [] });
    delete remedy.noExtension;
    expect(allowedActions(alert({}), remedy, me('engineer')).extend.ok).toBe(true);
    expect(why(allowedActions(alert({}), remedy, me('inspector')).extend)).toBe(
      "Recording an engineer's letter needs the engineer role (you are signed in as an inspector).",
    );
    expect(why(allowedActions(alert({ dueAt: null }), remedy, me('admin')).extend)).toBe(
      'This alert has no deadline to extend.',
    );
    expect(why(allowedActions(alert({}), remedy, me('admin')).inspect)).toMatch(
      /^No inspection closes this alert/,
    );
  });

  it('lets an owner act on an alert as an inspector would; a viewer is told why not', () => {
    expect(allowedActions(alert({}), rule({}), me('owner')).resolve.ok).toBe(true);
    expect(why(allowedActions(alert({}), rule({}), me('viewer')).resolve)).toBe(
      'This needs the inspector role (you are signed in as a viewer).',
    );
    expect(why(allowedActions(alert({}), rule({}), null).acknowledge)).toMatch(/^Sign in/);
  });

  it('offers nothing on a resolved alert, and no second acknowledgement', () => {
    const done = allowedActions(alert({ status: 'resolved' }), rule({}), me('admin'));
    expect(Object.values(done).every((x) => !x.ok)).toBe(true);
    expect(
      why(
        allowedActions(alert({ status: 'acknowledged', acknowledgedBy: 'Insp' }), rule({}), me('admin'))
          .acknowledge,
      ),
    ).toBe('Already acknowledged by Insp.');
  });
});
