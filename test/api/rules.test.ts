/** GET /api/rules through the real HTTP API: every rule id with its words, law and duty, in the shared shape. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../gateway/src/rules/index.ts';
import { type RuleInfo, rulesResponseSchema } from '../../shared/src/rules.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { fetchAnonymous } from '../helpers/viewerFetch.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const VIEWER = 'tok-rules-viewer';

describe('GET /api/rules', () => {
  let open: TestGateway;
  let closed: TestGateway;
  let rules: RuleInfo[];
  const byId = (id: string) => rules.find((r) => r.id === id)!;

  beforeAll(async () => {
    // The public view answers the rules to anyone; by default reads need a sign-in or a token.
    open = await startTestGateway({ http: { publicView: true } });
    closed = await startTestGateway({
      auth: { tokens: [{ name: 'Vera Viewer', role: 'viewer', tokenSha256: sha(VIEWER) }] },
    });
    const res = await fetchAnonymous(`${open.httpUrl}/api/rules`);
    expect(res.status).toBe(200);
    rules = rulesResponseSchema.parse(await res.json());
  }, 60_000);
  afterAll(async () => {
    await open?.cleanup();
    await closed?.cleanup();
  });

  it('lists every rule id an alert may carry, in the registry order, each with its words', () => {
    expect(rules.map((r) => r.id)).toEqual([...RULE_IDS]);
    for (const r of rules) {
      expect(r.label.length).toBeGreaterThan(0);
      expect(r.description.length).toBeGreaterThan(0);
      expect(r.law.length).toBeGreaterThan(0);
    }
    expect(new Set(rules.map((r) => r.label)).size).toBe(rules.length);
  });

  it('says which deadlines may be extended, what meets each duty and who must act', () => {
    expect(byId('storm-inspection')).toMatchObject({
      module: 'storm-inspection',
      label: 'Storm inspection',
      law: '001, maintenance during construction, A(2)',
      duty: true,
      extendable: false,
      meetsInspections: ['routine', 'storm', 'other'],
      responsible: ['developer'],
    });
    expect(byId('routine-inspection')).toMatchObject({ extendable: false, duty: true });
    expect(byId('annual-inspection')).toMatchObject({ meetsInspections: ['annual'], extendable: false });
    // One module raises both remedy rules, each with its own label; an engineer's letter extends either.
    expect(byId('equipment-remedy')).toMatchObject({
      module: 'remedy',
      label: 'Equipment remedy (5 d)',
      extendable: true,
      meetsInspections: [],
    });
    expect(byId('field-remedy')).toMatchObject({ module: 'remedy', extendable: true });
    expect(byId('field-remedy').label).not.toBe(byId('equipment-remedy').label);
    // Device problems are no duty.
    expect(byId('device-silent')).toMatchObject({ duty: false, extendable: false, section: 'gaps' });
    expect(byId('device-clock')).toMatchObject({ duty: false, extendable: false });
    // The annual inspection's deficiencies have the same law's remedies, which a letter extends too.
    expect(byId('equipment-deficiency')).toMatchObject({
      module: 'deficiency-remedy',
      label: 'Equipment deficiency (5 d)',
      extendable: true,
      responsible: ['owner'],
    });
    expect(byId('annual-inspection').measure).toBe('submittal');
    expect(byId('routine-inspection').measure).toBe('work');
    expect(byId('storm-inspection').measure).toBe('work');
    expect(rules.filter((r) => r.extendable).map((r) => r.id)).toEqual([
      'equipment-remedy',
      'field-remedy',
      'equipment-deficiency',
      'field-deficiency',
    ]);
  });

  it('says in words why a deadline may not be extended, for every rule that allows no letter', () => {
    expect(byId('routine-inspection').noExtension).toBe(
      'A routine inspection cannot be extended: the law sets the interval.',
    );
    expect(byId('storm-inspection').noExtension).toMatch(/^The 24-hour storm inspection cannot be extended/);
    for (const r of rules) {
      if (r.extendable) expect(r.noExtension, r.id).toBeUndefined();
      else expect(r.noExtension, r.id).toMatch(/^[A-Z].*\.$/);
    }
  });

  it('documents its answer in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${open.httpUrl}/docs/json`)).json()) as {
      paths: Record<string, { get?: { responses?: Record<string, { content?: unknown }> } }>;
    };
    expect(doc.paths['/api/rules']?.get?.responses?.['200']?.content).toBeDefined();
  });

  it('is read as the alerts are: behind a sign-in or a token unless the public view is on', async () => {
    expect((await fetchAnonymous(`${closed.httpUrl}/api/rules`)).status).toBe(401);
    const res = await fetchAnonymous(`${closed.httpUrl}/api/rules`, {
      headers: { authorization: `Bearer ${VIEWER}` },
    });
    expect(res.status).toBe(200);
    expect(rulesResponseSchema.parse(await res.json())).toEqual(rules);
    expect((await fetchAnonymous(`${closed.httpUrl}/api/alerts`)).status).toBe(401);
  });
});
