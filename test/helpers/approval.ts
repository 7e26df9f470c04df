/**
 * The officer's approval of a notice's correction, as the API takes it: on a re-inspection of the site
 * made after the correction was reported. `reinspect` records the town's re-inspection (kind "other", a
 * finding "in order" at each practice of the site); `approveOnReinspection` records one and approves on it.
 */
import { findingsFor } from './inspections.ts';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function send(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Records the town's re-inspection of a site at `at` (ISO; the gateway's now by default); its id. */
export async function reinspect(
  baseUrl: string,
  headers: Record<string, string>,
  siteId: string,
  o: { at: string; inspector?: string; notes?: string },
): Promise<string> {
  const site = await fetch(`${baseUrl}/api/sites/${encodeURIComponent(siteId)}`, { headers });
  if (!site.ok) throw new Error(`site ${siteId}: ${site.status} ${await site.text()}`);
  const practices = ((await site.json()) as { practices?: { id: string }[] }).practices ?? [];
  const r = await send(
    baseUrl,
    '/api/inspections',
    {
      siteId,
      at: o.at,
      kind: 'other',
      inspector: o.inspector ?? 'Ian Inspector',
      notes: o.notes ?? 'Re-inspected: the correction is done.',
      ...(practices.length ? { findings: findingsFor(practices.map((p) => p.id)) } : {}),
    },
    headers,
  );
  if (r.status !== 201) throw new Error(`re-inspection refused: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body.inspection as { id: string }).id;
}

/** Re-inspects the notice's site at `at` and approves the correction on that re-inspection. */
export async function approveOnReinspection(
  baseUrl: string,
  violationId: string,
  headers: Record<string, string>,
  o: { siteId: string; at: string; note?: string; inspector?: string },
): Promise<Answer> {
  const inspectionId = await reinspect(baseUrl, headers, o.siteId, o);
  return send(
    baseUrl,
    `/api/violations/${encodeURIComponent(violationId)}/approve`,
    { ...(o.note !== undefined ? { note: o.note } : {}), inspectionId },
    headers,
  );
}
