/**
 * The report's gaps: listed and counted only where their device was expected to report in the period
 * (the silence rule's `expectedSpans`, as the charts use it), not after it was retired.
 */
import { describe, expect, it } from 'vitest';
import { buildComplianceReport } from '../../../gateway/src/reports/compliance.ts';
import type { ReportInputs } from '../../../gateway/src/reports/report.ts';
import type { DeviceService } from '../../../gateway/src/rules/index.ts';
import { FULL, NOW, PERIOD, SITE, TZ } from '../../helpers/reportFixture.ts';

function inputs(services?: ReadonlyMap<string, DeviceService>): ReportInputs {
  const r = FULL;
  return {
    site: SITE,
    timezone: TZ,
    period: PERIOD,
    now: NOW,
    generatedBy: 'Ida Inspector',
    alerts: r.alerts,
    storms: r.storms,
    inspections: r.inspections,
    notices: r.notices,
    violations: [],
    stopWork: [],
    extensions: r.extensions,
    certifications: r.certifications,
    records: r.records,
    changes: r.changes,
    evidence: r.evidence,
    ...(services ? { services } : {}),
  };
}

const service = (addedAt: number, retiredAt: number | null): DeviceService => ({
  addedAt,
  retiredAt,
  firstReadingAt: null,
});

describe("the report's gaps", () => {
  it('counts every gap of a device expected all along', () => {
    const r = buildComplianceReport(inputs());
    expect(r.gaps.map((g) => g.alertId)).toEqual(['a-gap', 'a-gap-open']);
    expect(r.summary.gaps).toBe(2);
  });

  it('leaves out a gap still open from a device retired before the period', () => {
    // trap-1's silence, open since Nov 29, of a trap retired in October: no gap of this period.
    const before = Date.parse('2026-10-01T00:00:00Z');
    const services = new Map([
      ['rg-1', service(before, null)],
      ['trap-1', service(before, Date.parse('2026-10-15T00:00:00Z'))],
    ]);
    const r = buildComplianceReport(inputs(services));
    expect(r.gaps.map((g) => g.alertId)).toEqual(['a-gap']);
    expect(r.summary.gaps).toBe(1);
  });

  it('keeps a gap open when its device was retired within the period, up to then', () => {
    const before = Date.parse('2026-10-01T00:00:00Z');
    const services = new Map([
      ['rg-1', service(before, null)],
      ['trap-1', service(before, Date.parse('2026-11-30T00:00:00Z'))],
    ]);
    expect(buildComplianceReport(inputs(services)).summary.gaps).toBe(2);
  });
});
