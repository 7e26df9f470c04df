/**
 * What a compliance report is built from, for one construction site over November 2026 (New York time),
 * with every section populated: duties of each list (on time, late, missing, overdue, open, resolved,
 * superseded, extended), storms that did and did not reach the threshold, inspections, milestone notices
 * on time and late, notices of violation (approved on time and late, corrected, appealed, open, overdue,
 * one approved before the period and one approved after it), stop-work orders (served, lifted with an override,
 * lifted after the period, in effect), extensions, a certification, the site's history and its changes,
 * and cited evidence with a long storm and a red audit. Texts carry quotes, markup and formula-like starts.
 * `emptyRecords` is the same site and period with nothing in them.
 */

import { type SiteConfig, siteSchema } from '../../gateway/src/config/schema.ts';
import type { ChangeResponse } from '../../shared/src/admin.ts';
import type { AlertDto, ExtensionDto, InspectionDto, StormDto } from '../../shared/src/api/alerts.ts';
import type { NoticeDto } from '../../shared/src/api/notices.ts';
import { CERTIFICATION_STATEMENT, type SiteRecordDto } from '../../shared/src/api/siteRecords.ts';
import type { Certification } from '../../shared/src/api/system.ts';
import type { StopWorkDto, ViolationDto } from '../../shared/src/api/violations.ts';

export const TZ = 'America/New_York';
export const PERIOD = {
  from: Date.parse('2026-11-01T04:00:00.000Z'),
  to: Date.parse('2026-12-01T05:00:00.000Z'),
  firstDay: '2026-11-01',
  lastDay: '2026-11-30',
};
/** When the report is made: after the period's end. */
export const NOW = Date.parse('2026-12-02T15:30:00.000Z');

export const SITE: SiteConfig = siteSchema.parse({
  id: 'hill-farm',
  name: 'Hill <Farm> "North"',
  kind: 'construction',
  timezone: TZ,
  practices: [
    { id: 'silt-n', label: 'Silt fence, north <edge>', kind: 'silt-fence' },
    { id: 'inlet-1', label: 'Inlet protection, Elm St.', kind: 'inlet-protection' },
  ],
  devices: [],
});

/** The photos of the first inspection's findings (their SHA-256 hashes). */
export const PHOTO_A = 'a1'.repeat(32);
export const PHOTO_B = 'b2'.repeat(32);

/** Everything a report is built from, as read from the store for the period. */
export interface ReportRecords {
  alerts: AlertDto[];
  storms: StormDto[];
  inspections: InspectionDto[];
  notices: NoticeDto[];
  violations: ViolationDto[];
  stopWork: StopWorkDto[];
  extensions: ExtensionDto[];
  certifications: Certification[];
  records: SiteRecordDto[];
  changes: ChangeResponse[];
  evidence: {
    checkpoint: { origin: string; size: number; root: string; note: string };
    verifierKey: string;
    entries: Array<{ index: number; kind: string; body: string; leaf: string }>;
    proof: { size: number; ranges: Array<[number, number]>; hashes: string[] };
    longStorms: Array<{ stormId: string; readings: number; first: number; last: number }>;
    audit: { ok: boolean; detail?: string };
  };
}

function alert(
  id: string,
  rule: string,
  over: Partial<AlertDto> & Pick<AlertDto, 'raisedAt' | 'dueAt' | 'status'>,
): AlertDto {
  return {
    id,
    rule,
    siteId: SITE.id,
    overdue: false,
    message: `Alert ${id}`,
    evidence: {},
    history: [
      { seq: 1, at: over.raisedAt, actor: 'system', action: 'raised', detail: {}, logIndex: 100 + id.length },
      { seq: 2, at: over.raisedAt, actor: 'system', action: 'updated', detail: {} },
    ],
    ...over,
  };
}

const ALERTS: AlertDto[] = [
  alert('a-routine-ok', 'routine-inspection', {
    raisedAt: '2026-11-02T14:00:00.000Z',
    dueAt: '2026-11-09T14:00:00.000Z',
    status: 'resolved',
    resolvedAt: '2026-11-05T16:00:00.000Z',
    withinDeadline: true,
    resolution: {
      how: 'auto',
      by: 'Ida Inspector',
      evidence: { inspectionId: 'i-1' },
      cause: {
        kind: 'inspection',
        inspectionId: 'i-1',
        inspector: 'Ida Inspector',
        inspectionKind: 'routine',
        at: '2026-11-05T15:00:00.000Z',
      },
    },
    message: 'Routine inspection due within 7 days.',
  }),
  alert('a-routine-missed', 'routine-inspection', {
    raisedAt: '2026-11-20T14:00:00.000Z',
    dueAt: '2026-11-27T14:00:00.000Z',
    status: 'open',
    overdue: true,
    message: '=HYPERLINK("http://evil.example/","click")',
  }),
  alert('a-cleanout-late', 'sediment-cleanout', {
    deviceId: 'trap-1',
    raisedAt: '2026-10-25T12:00:00.000Z',
    dueAt: '2026-11-03T12:00:00.000Z',
    status: 'resolved',
    resolvedAt: '2026-11-06T12:00:00.000Z',
    withinDeadline: false,
    resolution: { how: 'manual', by: 'Carl Contractor', message: 'Dug out.', evidence: {} },
    message: 'Sediment at 52% of the design depth, "cleanout" due.',
  }),
  alert('a-annual-extended', 'annual-inspection', {
    raisedAt: '2026-11-10T15:00:00.000Z',
    dueAt: '2026-12-20T15:00:00.000Z',
    originalDueAt: '2026-12-10T15:00:00.000Z',
    status: 'acknowledged',
    message: 'Annual inspection by the engineer.',
  }),
  alert('a-remedy-overdue', 'equipment-remedy', {
    deviceId: 'pump-1',
    raisedAt: '2026-11-12T15:00:00.000Z',
    dueAt: '2026-11-14T15:00:00.000Z',
    status: 'open',
    overdue: true,
    message: 'Pump alarm <high water> & no remedy.',
  }),
  alert('a-remedy-superseded', 'field-remedy', {
    raisedAt: '2026-11-15T15:00:00.000Z',
    dueAt: '2026-11-17T15:00:00.000Z',
    status: 'resolved',
    resolvedAt: '2026-11-16T15:00:00.000Z',
    withinDeadline: true,
    resolution: { how: 'auto', by: 'system', evidence: { superseded: true } },
    message: 'Field remedy.',
  }),
  alert('a-gap', 'device-silent', {
    deviceId: 'rg-1',
    raisedAt: '2026-11-18T03:00:00.000Z',
    dueAt: null,
    status: 'resolved',
    resolvedAt: '2026-11-19T09:30:00.000Z',
    resolution: {
      how: 'auto',
      by: 'system',
      evidence: {},
      cause: { kind: 'readings', deviceId: 'rg-1', at: '2026-11-19T09:30:00.000Z' },
    },
    message: 'No reading from the rain gauge for 24 hours.',
  }),
  alert('a-gap-open', 'device-silent', {
    deviceId: 'trap-1',
    raisedAt: '2026-11-29T03:00:00.000Z',
    dueAt: null,
    status: 'open',
    message: 'No reading from the trap.',
  }),
  alert('a-clock', 'device-clock', {
    deviceId: 'rg-1',
    raisedAt: '2026-11-21T03:00:00.000Z',
    dueAt: '2026-11-22T03:00:00.000Z',
    status: 'open',
    overdue: true,
    message: "The gauge's clock is 9 minutes fast.",
  }),
  alert('a-turbidity-open', 'turbidity-contrast', {
    deviceId: 'turb-1',
    raisedAt: '2026-11-30T20:00:00.000Z',
    dueAt: '2026-12-05T20:00:00.000Z',
    status: 'open',
    message: '+12 NTU above the upstream reading.',
  }),
  alert('a-storm', 'storm-inspection', {
    raisedAt: '2026-11-08T10:00:00.000Z',
    dueAt: '2026-11-09T10:00:00.000Z',
    status: 'resolved',
    resolvedAt: '2026-11-08T20:00:00.000Z',
    withinDeadline: true,
    message: 'Storm inspection (listed with its storm).',
  }),
];

const STORMS: StormDto[] = [
  {
    id: 's-1',
    siteId: SITE.id,
    deviceId: 'rg-1',
    start: '2026-11-07T22:00:00.000Z',
    end: '2026-11-08T09:00:00.000Z',
    tips: 62,
    inches: 0.62,
    qualified: true,
    thresholdAt: '2026-11-08T05:00:00.000Z',
    dueAt: '2026-11-09T05:00:00.000Z',
    closed: true,
    inspection: { status: 'on-time', inspectionId: 'i-2', inspectedAt: '2026-11-08T20:00:00.000Z' },
    logIndex: 40,
  },
  {
    id: 's-2',
    siteId: SITE.id,
    deviceId: 'rg-1',
    start: '2026-11-12T01:00:00.000Z',
    end: '2026-11-12T03:30:00.000Z',
    tips: 7,
    inches: 0.07,
    qualified: false,
    closed: true,
    inspection: { status: 'not-required' },
    logIndex: 51,
  },
  {
    id: 's-3',
    siteId: SITE.id,
    deviceId: 'rg-1',
    start: '2026-11-24T12:00:00.000Z',
    end: '2026-11-25T12:00:00.000Z',
    tips: 1234,
    inches: 1.2345,
    qualified: true,
    thresholdAt: '2026-11-24T18:00:00.000Z',
    dueAt: '2026-11-25T18:00:00.000Z',
    closed: true,
    inspection: { status: 'missing' },
    logIndex: 77,
  },
];

const INSPECTIONS: InspectionDto[] = [
  {
    id: 'i-1',
    siteId: SITE.id,
    at: '2026-11-05T16:00:00.000Z',
    inspector: 'Ida Inspector',
    kind: 'routine',
    notes: 'Silt fence "mostly" up; see <photo>.',
    side: 'developer',
    // A practice of the site, with two photos, and one the site no longer lists.
    findings: [
      {
        practice: 'silt-n',
        status: 'maintenance',
        note: 'Sagging "10 ft" <east>',
        photos: [PHOTO_A, PHOTO_B],
      },
      { practice: 'old-basin', status: 'ok', note: '', photos: [] },
    ],
    recordedAt: '2026-11-05T16:10:00.000Z',
    recordedBy: 'Ida Inspector',
    hash: 'aa11',
    logIndex: 60,
  },
  {
    id: 'i-2',
    siteId: SITE.id,
    at: '2026-11-08T20:00:00.000Z',
    inspector: '@Ian',
    kind: 'storm',
    notes: 'After the storm, all practices in place.',
    side: 'developer',
    recordedAt: '2026-11-09T01:00:00.000Z',
    recordedBy: 'Ida Inspector',
    hash: 'bb22',
    logIndex: 61,
  },
];

const NOTICES: NoticeDto[] = [
  {
    id: 'n-1',
    siteId: SITE.id,
    milestone: 'site-clearing-complete',
    label: 'Completion of site clearing',
    at: '2026-11-04T13:00:00.000Z',
    filedAt: '2026-11-01T13:00:00.000Z',
    filedBy: 'Dana Developer',
    late: false,
    leadHours: 72,
    logIndex: 30,
  },
  {
    id: 'n-2',
    siteId: SITE.id,
    milestone: 'final-grading-complete',
    label: 'Completion of final grading',
    at: '2026-11-23T13:00:00.000Z',
    filedAt: '2026-11-22T20:00:00.000Z',
    filedBy: 'Dana Developer',
    late: true,
    leadHours: 17,
  },
];

function violation(id: string, over: Partial<ViolationDto>): ViolationDto {
  return {
    id,
    siteId: SITE.id,
    status: 'issued',
    nature: `Nature of ${id}: silt fence down.`,
    remedy: `Remedy of ${id}: put it back.`,
    remedyDueAt: '2026-11-10T15:00:00.000Z',
    penalties: 'Up to $250 a day; -see town law 001.',
    issuedAt: '2026-11-05T15:00:00.000Z',
    issuedBy: 'Ian Inspector',
    appealBy: '2026-11-15T15:00:00.000Z',
    events: [],
    documentUrl: `/api/violations/${id}/document`,
    ...over,
  };
}

const VIOLATIONS: ViolationDto[] = [
  violation('v-before', {
    siteSeq: 1,
    issuedAt: '2026-10-20T15:00:00.000Z',
    remedyDueAt: '2026-10-25T15:00:00.000Z',
    appealBy: '2026-10-30T15:00:00.000Z',
    status: 'approved',
    onTime: true,
    events: [{ kind: 'approved', at: '2026-10-24T15:00:00.000Z', by: 'Ian Inspector', text: '', photos: [] }],
    logIndex: 10,
  }),
  violation('v-ontime', {
    siteSeq: 2,
    inspectionId: 'i-1',
    issuedAt: '2026-10-28T15:00:00.000Z',
    remedyDueAt: '2026-11-06T15:00:00.000Z',
    appealBy: '2026-11-07T15:00:00.000Z',
    status: 'approved',
    onTime: true,
    events: [
      {
        kind: 'appealed',
        at: '2026-10-29T15:00:00.000Z',
        by: 'Dana Developer',
        text: 'We disagree.',
        photos: [],
        logIndex: 21,
      },
      {
        kind: 'corrected',
        at: '2026-11-03T15:00:00.000Z',
        by: 'Dana Developer',
        text: 'Fence "restored", see photos.',
        photos: ['a'.repeat(64), 'b'.repeat(64)],
        logIndex: 31,
      },
      {
        kind: 'approved',
        at: '2026-11-04T15:00:00.000Z',
        by: 'Ian Inspector',
        text: 'Approved.',
        photos: [],
        logIndex: 32,
      },
    ],
    logIndex: 20,
  }),
  violation('v-late', {
    siteSeq: 3,
    inspectionId: 'i-old',
    issuedAt: '2026-11-06T15:00:00.000Z',
    remedyDueAt: '2026-11-09T15:00:00.000Z',
    appealBy: '2026-11-16T15:00:00.000Z',
    status: 'approved',
    onTime: false,
    events: [
      {
        kind: 'corrected',
        at: '2026-11-12T15:00:00.000Z',
        by: 'Carl Contractor',
        text: '',
        photos: ['c'.repeat(64)],
        logIndex: 55,
      },
      {
        kind: 'approved',
        at: '2026-11-13T15:00:00.000Z',
        by: 'Ian Inspector',
        text: '=1+1',
        photos: [],
        logIndex: 56,
      },
    ],
    logIndex: 50,
  }),
  violation('v-overdue', {
    issuedAt: '2026-11-18T15:00:00.000Z',
    remedyDueAt: '2026-11-21T15:00:00.000Z',
    appealBy: '2026-11-28T15:00:00.000Z',
    status: 'corrected',
    events: [
      { kind: 'corrected', at: '2026-11-22T15:00:00.000Z', by: 'Carl Contractor', text: 'Done.', photos: [] },
    ],
  }),
  violation('v-approved-after', {
    siteSeq: 5,
    issuedAt: '2026-11-25T15:00:00.000Z',
    remedyDueAt: '2026-12-10T15:00:00.000Z',
    appealBy: '2026-12-05T15:00:00.000Z',
    status: 'approved',
    onTime: true,
    events: [
      {
        kind: 'approved',
        at: '2026-12-01T18:00:00.000Z',
        by: 'Ian Inspector',
        text: 'After the period.',
        photos: [],
        logIndex: 90,
      },
    ],
    logIndex: 80,
  }),
];

const STOP_WORK: StopWorkDto[] = [
  {
    id: 'sw-gone',
    siteId: SITE.id,
    siteSeq: 1,
    since: '2026-10-01T15:00:00.000Z',
    reason: 'Lifted before the period.',
    issuedBy: 'Ian Inspector',
    violationIds: [],
    liftedAt: '2026-10-10T15:00:00.000Z',
    liftedBy: 'Ian Inspector',
    liftNote: 'Fine.',
    logIndex: 5,
    liftLogIndex: 6,
  },
  {
    id: 'sw-override',
    siteId: SITE.id,
    siteSeq: 2,
    since: '2026-11-06T16:00:00.000Z',
    reason: 'Repeated silt fence failures.',
    issuedBy: 'Ian Inspector',
    violationIds: ['v-late', 'v-unknown'],
    liftedAt: '2026-11-11T16:00:00.000Z',
    liftedBy: 'Ian Inspector',
    liftNote: 'Lifted: "work may resume".',
    override: true,
    logIndex: 52,
    liftLogIndex: 54,
    // Served by e-mail in the period, in person after it (left out of the period's report).
    services: [
      {
        method: 'email',
        party: 'dev@ridge.test',
        servedAt: '2026-11-06T16:00:05.000Z',
        at: '2026-11-06T16:00:05.000Z',
        by: 'e-mail delivery',
        note: '',
        logIndex: 53,
      },
      {
        method: 'in-person',
        party: 'Pat "Landowner"',
        servedAt: '2026-12-01T15:00:00.000Z',
        at: '2026-12-01T15:10:00.000Z',
        by: 'Ian Inspector',
        note: 'Handed over at the gate.',
        logIndex: 98,
      },
    ],
    servedAt: '2026-11-06T16:00:05.000Z',
  },
  {
    id: 'sw-lifted-after',
    siteId: SITE.id,
    since: '2026-11-19T16:00:00.000Z',
    reason: 'Fence down again.',
    issuedBy: 'Ian Inspector',
    violationIds: ['v-overdue'],
    liftedAt: '2026-12-01T20:00:00.000Z',
    liftedBy: 'Ian Inspector',
    liftNote: 'After the period.',
    logIndex: 70,
    liftLogIndex: 95,
  },
  {
    id: 'sw-none',
    siteId: SITE.id,
    siteSeq: 4,
    since: '2026-11-28T16:00:00.000Z',
    reason: '-Work without a permit.',
    issuedBy: 'Ian Inspector',
    violationIds: [],
  },
];

const EXTENSIONS: ExtensionDto[] = [
  {
    seq: 1,
    alertId: 'a-annual-extended',
    siteId: SITE.id,
    rule: 'annual-inspection',
    oldDueAt: '2026-12-10T15:00:00.000Z',
    newDueAt: '2026-12-20T15:00:00.000Z',
    engineer: 'Eve Engineer, P.E.',
    letterRef: 'L-2026-11 "b"',
    at: '2026-11-20T15:00:00.000Z',
    by: 'Eve Engineer',
    hash: 'cc33',
    logIndex: 66,
  },
];

const CHANGES: ChangeResponse[] = [
  {
    id: 1,
    at: '2026-11-02T15:00:00.000Z',
    effectiveAt: '2026-10-15T14:00:00.000Z',
    by: 'Ada Admin',
    entity: 'history',
    action: 'lastRoutineInspection',
    siteId: SITE.id,
    deviceId: null,
    ref: null,
    old: '2026-10-01T14:00:00.000Z',
    new: '2026-10-15T14:00:00.000Z',
    logIndex: 12,
    leafHash: '',
  },
  {
    id: 2,
    at: '2026-11-03T15:00:00.000Z',
    effectiveAt: '2026-11-03T15:00:00.000Z',
    by: 'Ada Admin',
    entity: 'history',
    action: 'lastPumpOut',
    siteId: SITE.id,
    deviceId: null,
    ref: null,
    old: null,
    new: '2026-09-01T14:00:00.000Z',
    logIndex: 13,
    leafHash: '',
  },
  {
    id: 3,
    at: '2026-11-10T15:00:00.000Z',
    effectiveAt: '2026-11-10T15:00:00.000Z',
    by: 'Ada Admin',
    entity: 'device',
    action: 'update',
    siteId: SITE.id,
    deviceId: 'rg-1',
    ref: null,
    old: { inchesPerTip: 0.01 },
    new: { inchesPerTip: 0.007874 },
    logIndex: 45,
    leafHash: '',
  },
  {
    id: 4,
    at: '2026-11-11T15:00:00.000Z',
    effectiveAt: '2026-11-12T00:00:00.000Z',
    by: 'Ada Admin',
    entity: 'site',
    action: 'update',
    siteId: SITE.id,
    deviceId: null,
    ref: null,
    old: { name: 'Hill Farm' },
    new: { name: 'Hill <Farm> "North"' },
    logIndex: 46,
    leafHash: '',
  },
];

/** The developer's records on file: a certification (a signer's name with markup), the SWPPP, an acceptance. */
const RECORDS: SiteRecordDto[] = [
  {
    id: 'record-1',
    siteId: SITE.id,
    kind: 'certification',
    siteSeq: 1,
    at: '2026-10-20T13:00:00.000Z',
    recordedAt: '2026-10-20T14:00:00.000Z',
    recordedBy: 'Dana Developer',
    body: {
      kind: 'certification',
      statement: CERTIFICATION_STATEMENT,
      name: 'Jane <b>Roe</b>',
      title: 'Superintendent',
      firm: 'Acme "Excavating"',
      firmAddress: '12 Quarry Rd, Chester NY',
      telephone: '=845-555-0142',
      siteAddress: 'Lot 12',
      signedAt: '2026-10-20T13:00:00.000Z',
    },
    summary: 'Jane <b>Roe</b>, Superintendent, Acme "Excavating" (12 Quarry Rd, Chester NY; =845-555-0142)',
    logIndex: 120,
  },
  {
    id: 'record-2',
    siteId: SITE.id,
    kind: 'swppp',
    siteSeq: 2,
    at: '2026-10-21T13:00:00.000Z',
    recordedAt: '2026-10-21T14:00:00.000Z',
    recordedBy: 'Dana Developer',
    body: { kind: 'swppp', since: '2026-10-21T13:00:00.000Z', keptBy: 'Jane Roe', where: 'the trailer' },
    summary: 'kept by Jane Roe, the trailer',
    logIndex: 121,
  },
  {
    id: 'record-3',
    siteId: SITE.id,
    kind: 'final-acceptance',
    siteSeq: 3,
    at: '2026-11-20T15:00:00.000Z',
    recordedAt: '2026-11-20T16:00:00.000Z',
    recordedBy: 'Ida Inspector',
    body: { kind: 'final-acceptance', acceptedAt: '2026-11-20T15:00:00.000Z', note: '' },
    summary: 'the facilities accepted by the town',
    logIndex: 122,
  },
];

export const FULL: ReportRecords = {
  records: RECORDS,
  alerts: ALERTS,
  storms: STORMS,
  inspections: INSPECTIONS,
  notices: NOTICES,
  violations: VIOLATIONS,
  stopWork: STOP_WORK,
  extensions: EXTENSIONS,
  certifications: [
    {
      logIndex: 99,
      by: 'Eve Engineer',
      role: 'engineer',
      at: '2026-12-02T14:00:00.000Z',
      statement: 'I certify that these records are "true" and complete.',
      period: { from: '2026-11-01T04:00:00.000Z', to: '2026-12-01T05:00:00.000Z' },
      checkpoint: { size: 98, root: 'cm9vdDk4' },
    },
  ],
  changes: CHANGES,
  evidence: {
    checkpoint: {
      origin: 'town.example/gw',
      size: 120,
      root: 'cm9vdDEyMA==',
      note: 'town.example/gw\n120\ncm9vdDEyMA==\n\n— town.example/gw abc\n',
    },
    verifierKey: 'town.example/gw+0011aabb+KEY',
    entries: [
      { index: 40, kind: 'storm', body: '{"id":"s-1"}', leaf: 'bGVhZjQw' },
      { index: 60, kind: 'inspection', body: '{"id":"i-1","notes":"<x>"}', leaf: 'bGVhZjYw' },
      { index: 99, kind: 'certification', body: '{}', leaf: 'bGVhZjk5' },
    ],
    proof: {
      size: 120,
      ranges: [
        [40, 41],
        [60, 61],
        [99, 100],
      ],
      hashes: ['aGFzaDE=', 'aGFzaDI='],
    },
    longStorms: [{ stormId: 's-3', readings: 23456, first: 71, last: 76 }],
    audit: { ok: false, detail: 'entry 61 does not match its "inspection"' },
  },
};

export const EMPTY: ReportRecords = {
  records: [],
  alerts: [],
  storms: [],
  inspections: [],
  notices: [],
  violations: [],
  stopWork: [],
  extensions: [],
  certifications: [],
  changes: [],
  evidence: {
    checkpoint: {
      origin: 'town.example/gw',
      size: 3,
      root: 'cm9vdDM=',
      note: 'town.example/gw\n3\ncm9vdDM=\n',
    },
    verifierKey: 'town.example/gw+0011aabb+KEY',
    entries: [],
    proof: { size: 3, ranges: [], hashes: [] },
    longStorms: [],
    audit: { ok: true },
  },
};
