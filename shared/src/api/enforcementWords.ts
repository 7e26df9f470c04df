/**
 * The words and constants of inspections and enforcement, without zod, so that the dashboard's bundle
 * can import them (the schemas in `findings.ts` and `violations.ts` are built from these).
 */
import { NOTICE_LAW } from './enforcementLaws.ts';

/**
 * The most practices a site lists (an inspection has a finding for each at most), and the longest a
 * finding's note may be (a line or two; the inspection's notes take longer text): with every text at its
 * most, an inspection is about 110,000 characters, and its body at most about 0.5 MB.
 */
export const PRACTICES_MAX = 100;
export const FINDINGS_MAX = PRACTICES_MAX;
export const FINDING_NOTE_MAX = 1000;

/** The kinds of practice the law names (silt fence, inlet protection, stabilized entrance, …). */
export const PRACTICE_KINDS = [
  'silt-fence',
  'inlet-protection',
  'stabilized-entrance',
  'sediment-trap',
  'sediment-basin',
  'stabilization',
  'other',
] as const;
export type PracticeKind = (typeof PRACTICE_KINDS)[number];

/** Words for each kind, as forms and reports show them. */
export const PRACTICE_KIND_LABELS: Record<PracticeKind, string> = {
  'silt-fence': 'Silt fence',
  'inlet-protection': 'Inlet protection',
  'stabilized-entrance': 'Stabilized construction entrance',
  'sediment-trap': 'Sediment trap',
  'sediment-basin': 'Sediment basin',
  stabilization: 'Soil stabilization',
  other: 'Other practice',
};

/** What the inspector found at a practice. */
/** The image types POST /api/photos accepts, and the largest photo it keeps. */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;

/** Days after service within which a notice may be appealed ("within 15 days of service"): the law's. */
export const APPEAL_DAYS = NOTICE_LAW.appealDays;

export const VIOLATION_STATUSES = ['issued', 'appealed', 'corrected', 'approved', 'reversed'] as const;
export type ViolationStatus = (typeof VIOLATION_STATUSES)[number];
export const VIOLATION_STATUS_LABELS: Record<ViolationStatus, string> = {
  issued: 'Issued',
  appealed: 'Appealed',
  corrected: 'Corrected, awaiting approval',
  approved: 'Approved',
  reversed: 'Reversed on appeal',
};

/** How a notice or order reached a party: by e-mail (the gateway's delivery), by mail or in person. */
export const SERVICE_METHODS = ['email', 'mail', 'in-person'] as const;
export type ServiceMethod = (typeof SERVICE_METHODS)[number];
export const SERVICE_METHOD_LABELS: Record<ServiceMethod, string> = {
  email: 'by e-mail',
  mail: 'by mail',
  'in-person': 'in person',
};

/** What the body hearing an appeal decided (the Local Board of Health, law 000 Section 5.010). */
export const HEARING_OUTCOMES = ['upheld', 'modified', 'reversed'] as const;
export type HearingOutcome = (typeof HEARING_OUTCOMES)[number];
export const HEARING_OUTCOME_LABELS: Record<HearingOutcome, string> = {
  upheld: 'Upheld',
  modified: 'Modified',
  reversed: 'Reversed',
};

/**
 * A notice's status from its steps in order: its last appeal, correction or approval, or "reversed" once
 * a hearing reversed it; a service or a hearing that upheld or modified it changes no status.
 */
export function statusOfSteps(steps: readonly { kind: string; outcome?: unknown }[]): ViolationStatus {
  let status: ViolationStatus = 'issued';
  for (const s of steps) {
    if (s.kind === 'heard') {
      if (s.outcome === 'reversed') status = 'reversed';
    } else if ((VIOLATION_STATUSES as readonly string[]).includes(s.kind)) status = s.kind as ViolationStatus;
  }
  return status;
}

/** A notice is closed once approved or reversed on appeal: no step follows. */
export const isClosed = (s: ViolationStatus) => s === 'approved' || s === 'reversed';

/** The penalties statement a notice carries when the officer gives none (law 001, Enforcement D). */
export const DEFAULT_PENALTIES = NOTICE_LAW.penalties;

/**
 * Work halted by a violation finding not yet corrected and approved (001, inspection A(2)), as shown
 * wherever the stop-work order is.
 */
export const WORK_HALTED_WORDS = 'Work halted except site stabilization';

/** The document of a stop-work order, served by the API (printable; `?format=pdf` a PDF). */
export const stopWorkDocumentUrl = (id: string): string =>
  `/api/stop-work/${encodeURIComponent(id)}/document`;

/**
 * The correction an approval meets: the last one reported since the appeal's last hearing (a decision may
 * change what is to be done), if any.
 */
export function correctionToApprove<E extends { kind: string }>(events: readonly E[]): E | undefined {
  let last: E | undefined;
  for (const e of events) {
    if (e.kind === 'heard') last = undefined;
    else if (e.kind === 'corrected') last = e;
  }
  return last;
}
