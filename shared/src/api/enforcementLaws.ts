/**
 * What a notice of violation is made of, per law: the elements it must carry (each heading's words, in
 * the law's order), the penalties statement it carries when the officer gives none, and the appeal (days
 * after service, and the sentence that tells the parties). Code reads these; it has no branch per law, so
 * another law's notices are another entry of `ENFORCEMENT_LAWS`. Without zod, so the dashboard's bundle
 * can import it.
 */

/** The elements of a notice, in the order the law lists them. */
export const NOTICE_ELEMENTS = ['parties', 'land', 'nature', 'remedy', 'penalties', 'appeal'] as const;
export type NoticeElement = (typeof NOTICE_ELEMENTS)[number];

export interface EnforcementLaw {
  /** The law's name as a notice names it, in a sentence ("… in accordance with its {title}"). */
  title: string;
  /** Its part that governs enforcement, as a notice's heading names it. */
  part: string;
  /** Each element's heading (numbered in order on the notice). */
  elements: Record<NoticeElement, string>;
  /** The penalties statement a notice carries when the officer gives none. */
  penalties: string;
  /** Days after service within which a notice may be appealed. */
  appealDays: number;
  /** The appeal element's sentence: `{days}` the days, `{by}` the last day to appeal, in words. */
  appealStatement: string;
}

export const ENFORCEMENT_LAWS = {
  '001': {
    title: 'stormwater law for land development activities (law 001)',
    part: 'Enforcement',
    elements: {
      parties: 'Landowner and developer',
      land: 'The land',
      nature: 'Nature of the violation',
      remedy: 'Remedial measures and time schedule',
      penalties: 'Penalties',
      appeal: 'Appeal',
    },
    penalties:
      'A violation of this article is punishable by a fine not exceeding $250 or imprisonment for a period ' +
      'not to exceed 15 days, or both, for conviction of a first offense; a second offense within five years ' +
      'is an aggravated violation (a fine of $350 to $700 or imprisonment up to six months, or both), and a ' +
      'third or later offense within the same five years a fine of $700 to $1,000 or imprisonment up to six ' +
      'months, or both (Town law 001, Enforcement, D).',
    appealDays: 15,
    appealStatement:
      'This determination may be appealed to the Town by filing a written notice of appeal within {days} days of service, by {by}.',
  },
} as const satisfies Record<string, EnforcementLaw>;
export type EnforcementLawId = keyof typeof ENFORCEMENT_LAWS;

/** The law the town's notices of violation follow (a notice names no law of its own yet). */
export const NOTICE_LAW: EnforcementLaw = ENFORCEMENT_LAWS['001'];

/** The numbered headings of a law's notice, in order: "1. Landowner and developer", … */
export const elementHeadings = (law: EnforcementLaw): Record<NoticeElement, string> =>
  Object.fromEntries(NOTICE_ELEMENTS.map((e, i) => [e, `${i + 1}. ${law.elements[e]}`])) as Record<
    NoticeElement,
    string
  >;

/** The appeal element's sentence of a law, with its days and the last day to appeal (in words). */
export const appealSentence = (law: EnforcementLaw, by: string): string =>
  law.appealStatement.replace('{days}', String(law.appealDays)).replace('{by}', by);
