/**
 * The verifier's checks of a report's milestone notices (town law 001, A(1)) against the records it
 * cites: each listed notice says what its logged record says (milestone, its time, when and by whom it
 * was filed, late or not), its lateness is the 48 hours' rule applied to those times, the site's notices
 * are numbered without a gap (`siteSeq`), every cited notice of the period is listed, and the summary
 * counts them. Reports of releases without notices carry none: nothing to check. Pure, no Node API.
 */
import type { CitedBody } from './shown.ts';
import { capital, entryWords, numbering, type Problem, problem, shown, type Words, when } from './words.ts';

/** A notice as a report lists it. */
export interface ShownNotice {
  id: string;
  milestone: string;
  label?: string;
  at: string;
  filedAt: string;
  filedBy?: string;
  late: boolean;
  logIndex?: number;
}

const LEAD_MS = 48 * 3_600_000;
const t = (iso: string | undefined) => (iso ? Date.parse(iso) : undefined);

export function checkNotices(
  r: {
    notices?: ShownNotice[];
    period?: { from: string; to: string };
    summary: Record<string, number>;
  },
  cited: (i: number | undefined) => CitedBody | undefined,
  all: CitedBody[],
  w: Words,
): Problem[] {
  const out: Problem[] = [];
  const listedNotices = r.notices ?? [];
  listedNotices.forEach((n, i) => {
    const where = `The milestone notice "${n.label ?? n.milestone}" for ${when(t(n.at), w)}`;
    const e = cited(n.logIndex);
    if (e?.kind !== 'notice') {
      out.push(problem(`notices[${i}].logIndex`, `${where}: its logged record is not in the report`));
      return;
    }
    const b = e.body;
    const pairs: Array<[string, string, unknown, unknown, 'time' | 'text']> = [
      ['id', 'its number', n.id, b.id, 'text'],
      ['milestone', 'its milestone', n.milestone, b.milestone, 'text'],
      ['at', 'the milestone time', t(n.at), b.at, 'time'],
      ['filedAt', 'the time it was filed', t(n.filedAt), b.filedAt, 'time'],
      ['filedBy', 'who filed it', n.filedBy, b.filedBy, 'text'],
      ['late', 'it as late', n.late, b.late, 'text'],
    ];
    for (const [key, words, mine, logged, kind] of pairs)
      if (mine !== undefined && mine !== logged)
        out.push(
          problem(
            `notices[${i}].${key}`,
            `${where}: the report shows ${words} ${shown(mine, w, kind)}, its logged record ${shown(logged, w, kind)}`,
          ),
        );
    const late = (b.at as number) - (b.filedAt as number) < LEAD_MS;
    if (late !== b.late || late !== n.late)
      out.push(
        problem(
          `notices[${i}].late`,
          `${where}: filed ${when(b.filedAt, w)}, it is ${late ? 'late' : 'on time'} by the 48 hours' rule, the report says ${n.late ? 'late' : 'on time'}`,
        ),
      );
  });
  const notices = all.filter((e) => e.kind === 'notice');
  out.push(...numbering(notices, 'notices', ['milestone notice', 'milestone notices'], w));
  if (r.period && r.notices) {
    const [from, to] = [Date.parse(r.period.from), Date.parse(r.period.to)];
    const listed = new Set(listedNotices.map((x) => x.logIndex));
    for (const e of notices)
      if ((e.body.at as number) >= from && (e.body.at as number) < to && !listed.has(e.index))
        out.push(
          problem(
            'notices',
            capital(
              `${entryWords(e.body, w)} is logged in the report's period (log entry ${e.index}) but the report does not list it`,
            ),
          ),
        );
  }
  if (r.notices && r.summary.noticesOnTime !== undefined) {
    const expected = {
      noticesOnTime: listedNotices.filter((n) => !n.late).length,
      noticesLate: listedNotices.filter((n) => n.late).length,
    };
    for (const [k, v] of Object.entries(expected))
      if (r.summary[k] !== v)
        out.push(
          problem(
            `summary.${k}`,
            `The summary counts ${r.summary[k]} milestone notices ${k === 'noticesLate' ? 'late' : 'on time'}, its rows ${v}`,
          ),
        );
  }
  return out;
}
