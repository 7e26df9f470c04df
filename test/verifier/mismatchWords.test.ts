/**
 * Each kind of difference the verifier reports between a report and its log entry, in words a town clerk
 * reads: a changed finding by its practice's label and the finding's words, a changed record's particulars
 * and a change's values as their members' words, never JSON; times in the site's zone, named.
 */
import { describe, expect, it } from 'vitest';
import { type CitedBody, type Context, checkSection } from '../../gateway/src/verifier/checker.ts';
import { changes, inspections, records } from '../../gateway/src/verifier/sections.ts';
import { findingsDiffer } from '../../gateway/src/verifier/values.ts';
import { valueWords, type Words } from '../../gateway/src/verifier/words.ts';

const W: Words = {
  tz: 'America/New_York',
  site: 'Maple Ridge',
  practices: { 'sf-north': 'Silt fence, north boundary', inlet: 'Inlet protection, Elm St' },
};
/** Oct 12, 2026, 2:05 PM EDT. */
const AT = Date.parse('2026-10-12T18:05:00Z');
const PHOTO = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);

const ctxOf = (logged: CitedBody[]): Context => ({
  cited: (i) => logged.find((e) => e.index === i),
  all: logged,
  w: W,
  from: Number.NEGATIVE_INFINITY,
  to: Number.POSITIVE_INFINITY,
  stated: false,
});

const loggedFindings = [
  { practice: 'sf-north', status: 'ok', note: '', photos: [PHOTO] },
  { practice: 'inlet', status: 'ok', note: 'Clear.', photos: [] },
];
const inspectionBody = {
  type: 'inspection',
  id: 'i-1',
  siteId: 'maple-ridge',
  seq: 1,
  siteSeq: 1,
  at: AT,
  inspector: 'Ian Inspector',
  kind: 'routine',
  notes: 'Walked the site.',
  recordedAt: AT,
  recordedBy: 'Ian Inspector',
  findings: loggedFindings,
};
const shownInspection = (findings: unknown[]) => ({
  id: 'i-1',
  at: new Date(AT).toISOString(),
  kind: 'routine',
  inspector: 'Ian Inspector',
  notes: 'Walked the site.',
  recordedAt: new Date(AT).toISOString(),
  recordedBy: 'Ian Inspector',
  findings,
  logIndex: 7,
});

/** The problems of the inspection's findings row, shown with `findings`. */
function findingProblems(findings: unknown[]) {
  const ctx = ctxOf([{ index: 7, pos: 0, kind: 'inspection', body: inspectionBody }]);
  return checkSection(inspections, [shownInspection(findings)], ctx).filter(
    (p) => p.field === 'inspections[0].findings',
  );
}

describe('a changed finding, in words', () => {
  it('names the inspection in the site time, the practice by its label, and what each side reads', () => {
    const changed = [{ ...loggedFindings[0]!, status: 'maintenance' }, loggedFindings[1]!];
    expect(findingProblems(changed)).toEqual([
      {
        field: 'inspections[0].findings',
        message:
          "The inspection of Oct 12, 2026, 2:05 PM EDT at Maple Ridge by Ian Inspector: the finding at 'Silt fence, north boundary' reads 'Needs maintenance' in the report but 'In order' in the log",
      },
    ]);
  });

  it('a changed note, a changed photo, a finding left out and one added', () => {
    const message = findingProblems([
      { ...loggedFindings[0]!, note: 'Sagging "a bit"', photos: [OTHER] },
      { practice: 'outlet', status: 'violation', note: '', photos: [] },
    ])[0]!.message;
    expect(message).toBe(
      "The inspection of Oct 12, 2026, 2:05 PM EDT at Maple Ridge by Ian Inspector: the note of the finding at 'Silt fence, north boundary' reads \"Sagging \"a bit\"\" in the report but none in the log; the finding at 'Silt fence, north boundary' shows a photo (cdcdcdcdcdcd…) that the log does not have; the log has a finding at 'Inlet protection, Elm St' ('In order') that the report leaves out; the report shows a finding at 'outlet' ('Violation') that the log does not have",
    );
    expect(message).not.toMatch(/\\|[{}[\]]/);
  });

  it('a photo taken out, and findings only reordered', () => {
    expect(
      findingsDiffer([{ ...loggedFindings[0]!, photos: [] }, loggedFindings[1]], loggedFindings, W),
    ).toBe("the finding at 'Silt fence, north boundary' has 0 photos in the report but 1 photo in the log");
    expect(findingsDiffer([loggedFindings[1], loggedFindings[0]], loggedFindings, W)).toBe(
      'the findings are in another order than in the log',
    );
  });
});

describe('other records differing from their log entry, in words', () => {
  it("a developer's record's particulars: its members in words, its times in the site's zone", () => {
    const body = {
      type: 'site-record',
      id: 'r-1',
      siteId: 'maple-ridge',
      siteSeq: 1,
      kind: 'swppp',
      at: AT,
      recordedAt: AT,
      recordedBy: 'Dee Developer',
      body: { version: 2, preparedBy: 'Acme Engineering', signedAt: AT },
    };
    const shown = {
      id: 'r-1',
      kind: 'swppp',
      at: new Date(AT).toISOString(),
      recordedAt: new Date(AT).toISOString(),
      recordedBy: 'Dee Developer',
      body: { version: 3, preparedBy: 'Acme Engineering', signedAt: AT },
      logIndex: 4,
    };
    const out = checkSection(records, [shown], ctxOf([{ index: 4, pos: 0, kind: 'site-record', body }]));
    expect(out).toEqual([
      {
        field: 'records[0].body',
        message:
          "The developer's record (swppp) of Oct 12, 2026, 2:05 PM EDT: in its particulars, version reads 3 in the report but 2 in the log",
      },
    ]);
  });

  it("a change's values before and after: words, not JSON", () => {
    const body = {
      type: 'change',
      id: 'c-1',
      siteId: 'maple-ridge',
      effectiveAt: AT,
      by: 'Ada Admin',
      action: 'calibrate',
      entity: 'device',
      deviceId: 'rg-1',
      old: { inchesPerTip: 0.01 },
      new: { inchesPerTip: 0.011 },
    };
    const shown = {
      ...body,
      id: 'c-1',
      effectiveAt: new Date(AT).toISOString(),
      new: { inchesPerTip: 0.02 },
      logIndex: 9,
    };
    const out = checkSection(changes, [shown as never], ctxOf([{ index: 9, pos: 0, kind: 'change', body }]));
    expect(out).toEqual([
      {
        field: 'changes[0].new',
        message:
          'The change (calibrate) by Ada Admin of Oct 12, 2026, 2:05 PM EDT: in the new value, inches per tip reads 0.02 in the report but 0.011 in the log',
      },
    ]);
  });

  it('any value: a text quoted unescaped, a list, a fingerprint shortened, none', () => {
    expect(valueWords('line one\nline "two"', W)).toBe('"line one line "two""');
    expect(valueWords(['a', 'b'], W)).toBe('"a", "b"');
    expect(valueWords(PHOTO, W)).toBe('the fingerprint abababababab…');
    expect(valueWords([], W)).toBe('none');
    expect(valueWords({ at: AT, ok: true }, W)).toBe('at Oct 12, 2026, 2:05 PM EDT; ok yes');
  });
});
