/**
 * What closed a duty, through a real gateway: the routine inspection that met a routine period is named in
 * the report's JSON (its cause and the words), and the verifier checks both against the logged
 * resolution: a report that says the duty was closed by something else is refused, in words.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { makeRealReport, type RealReport } from '../helpers/verifiedReport.ts';

interface Duty {
  alertId: string;
  status: string;
  cause?: Record<string, unknown>;
  resolution?: string;
}

describe('a duty says what closed it, and the verifier checks it', () => {
  let real: RealReport;
  let routine: Duty[];
  beforeAll(async () => {
    real = await makeRealReport();
    routine = (real.report as unknown as { routine: Duty[] }).routine;
  });

  it("names the routine inspection that met the period: its inspector, kind and time, in the site's zone", async () => {
    const met = routine.find((d) => d.status === 'on-time' && d.cause?.inspectionKind === 'routine');
    expect(met?.cause).toMatchObject({ kind: 'inspection', inspector: 'Ian Inspector' });
    expect(met?.cause?.inspectionId).toMatch(/^insp-/);
    expect(met?.resolution).toMatch(
      /^by the routine inspection by Ian Inspector on \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T$/,
    );
    // The period still open has none.
    expect(routine.filter((d) => d.status === 'open').every((d) => d.cause === undefined)).toBe(true);
    const v = await verifyReport(readReport(JSON.parse(real.text)), real.key);
    expect(v.problems).toEqual([]);
  });

  it("refuses a copy that says the officer's approval closed it, naming the duty and both causes", async () => {
    const report = structuredClone(real.report) as unknown as { routine: Duty[] };
    const at = report.routine.findIndex((d) => d.cause?.inspectionKind === 'routine');
    expect(at).toBeGreaterThanOrEqual(0);
    const d = report.routine[at]!;
    d.cause = {
      kind: 'notice',
      step: 'approved',
      noticeId: 'nov-1',
      number: 1,
      by: 'Olive Officer',
      at: d.cause!.at,
    };
    d.resolution = 'by the officer’s approval of notice of violation no. 1';
    const v = await verifyReport(report as never, real.key);
    expect(v.ok).toBe(false);
    const byField = new Map(v.problems.map((p) => [p.field, p.message]));
    expect(byField.get(`routine[${at}].cause`)).toMatch(
      /the report shows what closed it as .*officer's approval of notice of violation no\. 1.*its logged record .*by the routine inspection by Ian Inspector/,
    );
    expect(byField.get(`routine[${at}].resolution`)).toMatch(/by the routine inspection by Ian Inspector/);
  });
});
