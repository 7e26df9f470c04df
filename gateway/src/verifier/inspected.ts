/**
 * What an inspection claims, proven from the log (town law 001, maintenance during construction, A(2):
 * the developer "shall inspect and document the effectiveness of all erosion and sediment control
 * practices" within 24 hours of a storm and every 7 days). An inspection's log entry holds whose it is
 * (`side`), how many practices the site had (`practices`) and how many it covered (`covered`), and its
 * findings: the report's side and coverage are its entry's, and the entry's coverage is what its findings
 * name. An inspection the report shows as meeting a storm's or a routine duty was the developer's,
 * covered every practice of the site then, and, for a storm, was made after the storm's last tip.
 * Entries logged before sides and coverage were kept hold neither: what the report says of them is
 * given, not provable (a note, not a problem). Pure, no Node API (it is bundled into verify.html).
 */
import type { CitedBody, Context } from './checker.ts';
import type { ReportJson } from './reportJson.ts';
import type { DutyAt, ShownInspection } from './shown.ts';
import { capital, dutyWords, type Problem, problem, type Words, when } from './words.ts';

type Json = Record<string, unknown>;

/** Whose an inspection is, in a sentence. */
const sideWords = (side: unknown): string =>
  side === 'town' ? "the town's own inspection" : side === 'developer' ? "the developer's" : 'none';

const practicesWords = (covered: unknown, of: unknown): string =>
  typeof of === 'number' ? `${String(covered)} of ${of} practice${of === 1 ? '' : 's'}` : 'no practices';

/** The practices a logged inspection's findings name, each once. */
function named(body: Json): number {
  const findings = Array.isArray(body.findings) ? (body.findings as Json[]) : [];
  return new Set(findings.map((f) => f.practice)).size;
}

/**
 * A listed inspection's side and coverage against its log entry, and the entry's coverage against the
 * practices its findings name (the `law` of the inspections' table, `sections.ts`).
 */
export function checkClaims(
  x: ShownInspection,
  e: CitedBody,
  at: { base: string; where: string },
): Problem[] {
  const b = e.body;
  const out: Problem[] = [];
  if (b.side !== undefined && x.side !== undefined && x.side !== b.side)
    out.push(
      problem(
        `${at.base}.side`,
        `${at.where}: the report shows it as ${sideWords(x.side)}, its logged record as ${sideWords(b.side)}`,
      ),
    );
  if (b.practices !== undefined || x.coverage !== undefined) {
    const c = x.coverage;
    if (c?.covered !== b.covered || c?.of !== b.practices)
      out.push(
        problem(
          `${at.base}.coverage`,
          `${at.where}: the report shows it covered ${c ? practicesWords(c.covered, c.of) : 'no practices'}, its logged record ${practicesWords(b.covered, b.practices)}`,
        ),
      );
  }
  if (typeof b.covered === 'number') {
    const n = named(b);
    if (n !== b.covered || (typeof b.practices === 'number' && b.covered > b.practices))
      out.push(
        problem(
          `${at.base}.coverage`,
          `${at.where}: its logged record counts ${practicesWords(b.covered, b.practices)} covered, but its findings name ${n}`,
        ),
      );
  }
  return out;
}

/** Whether a logged inspection meets the developer's duty of inspecting every practice (old entries: as given). */
export function meetsDeveloperDuty(b: Json): boolean {
  return b.side !== 'town' && !(typeof b.practices === 'number' && Number(b.covered) < b.practices);
}

/** Why a logged inspection does not meet the developer's duty, or undefined when it does (or is not provable). */
function notMet(b: Json, w: Words, after?: { end: number }): string | undefined {
  if (b.side === 'town') return "it was the town's own inspection, not the developer's";
  if (typeof b.practices === 'number' && Number(b.covered) < b.practices)
    return `it covered ${practicesWords(b.covered, b.practices)} of the site`;
  if (after && (b.at as number) <= after.end)
    return `it was made at ${when(b.at, w)}, before the storm's last tip at ${when(after.end, w)}`;
  return undefined;
}

/** Whether a logged inspection predates sides and coverage: what is said of it is given, not provable. */
const unprovable = (b: Json) => b.side === undefined;

/**
 * The inspections the report shows as meeting a storm's duty (its `inspection.inspectionId`) or a routine
 * duty (its resolution's `inspectionId`): the developer's, covering every practice, after the storm.
 * Those whose entries the report does not carry, or that predate sides, are noted as not provable.
 */
export function checkMet(
  r: ReportJson,
  routine: ReadonlyArray<DutyAt>,
  ctx: Pick<Context, 'all' | 'cited' | 'w'>,
): { problems: Problem[]; notes: string[] } {
  const { w } = ctx;
  const byId = new Map<unknown, Json>(
    ctx.all.filter((e) => e.kind === 'inspection').map((e) => [e.body.id, e.body]),
  );
  const problems: Problem[] = [];
  const notes: string[] = [];
  const claim = (id: unknown, field: string, where: string, after?: { end: number }) => {
    const b = byId.get(id);
    if (!b) {
      notes.push(
        `${where}: the inspection that met it is not in the report; that it met it is given, not provable`,
      );
      return;
    }
    const why = notMet(b, w, after);
    if (why)
      problems.push(
        problem(field, `${where}: the report shows it met by the inspection of ${when(b.at, w)}, but ${why}`),
      );
    else if (unprovable(b))
      notes.push(
        `${where}: the inspection of ${when(b.at, w)} that met it was logged before whose it is and the practices it covered were kept; that it was the developer's, of every practice, is given, not provable`,
      );
  };
  r.storms.forEach((s, i) => {
    const id = s.inspection.inspectionId;
    if (!s.qualified || id === undefined) return;
    const rec = ctx.cited(s.logIndex)?.body;
    const end = typeof rec?.end === 'number' ? rec.end : Date.parse(s.end);
    claim(
      id,
      `storms[${i}].inspection`,
      `Storm of ${when(Date.parse(s.start), w)} at site '${w.site}' (gauge ${s.deviceId})`,
      { end },
    );
  });
  for (const { d, at } of routine) {
    const resolved = d.historyIndexes
      .map((i) => ctx.cited(i)?.body)
      .find((b) => b?.alertId === d.alertId && b.action === 'resolved');
    const evidence = ((resolved?.detail as Json | undefined)?.evidence ?? {}) as Json;
    if (evidence.inspectionId === undefined || evidence.superseded === true) continue;
    claim(evidence.inspectionId, `${at}.resolvedAt`, capital(dutyWords(d)));
  }
  return { problems, notes };
}
