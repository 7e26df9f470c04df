/**
 * The developer's records' words (town law 001), without zod: the verifier's and the dashboard's bundles
 * take them from here (`siteRecords.ts` holds the schemas).
 */
/** The statement every contractor signs (001, SWPPP certification, A), in the law's words. */
export const CERTIFICATION_STATEMENT =
  'I certify under penalty of law that I understand and agree to comply with the terms and conditions of the stormwater pollution prevention plan. I also understand that it is unlawful for any person to cause or contribute to a violation of water quality standards.';

export const SITE_RECORD_KINDS = [
  'certification',
  'swppp',
  'expected-milestone',
  'final-acceptance',
  'one-year-inspection',
  'final-stabilization',
  'stabilization-confirmation',
] as const;
export type SiteRecordKind = (typeof SITE_RECORD_KINDS)[number];

/** The records' names for people. */
export const SITE_RECORD_LABELS: Record<SiteRecordKind, string> = {
  certification: "Contractor's certification",
  swppp: 'SWPPP kept on site',
  'expected-milestone': 'Expected milestone',
  'final-acceptance': 'Final acceptance',
  'one-year-inspection': 'One-year inspection',
  'final-stabilization': 'Final stabilization',
  'stabilization-confirmation': 'Final stabilization confirmed by the town',
};

/** Who may record each kind: the site's side (owner, contractor) or the officer's. */
export const SITE_RECORD_BY: Record<SiteRecordKind, 'site' | 'officer'> = {
  certification: 'site',
  swppp: 'site',
  'expected-milestone': 'site',
  'final-acceptance': 'officer',
  'one-year-inspection': 'officer',
  'final-stabilization': 'site',
  'stabilization-confirmation': 'officer',
};
