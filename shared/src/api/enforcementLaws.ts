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

/** The town's choice of the days to appeal where its law names none: the days, and its reason in words. */
export interface TownAppeal {
  days: number;
  reason: string;
}

/** The town's choice unless its configuration says otherwise: the period of its stormwater notices. */
export const TOWN_APPEAL_DEFAULT: TownAppeal = {
  days: 15,
  reason:
    'the same period as the notices of its stormwater law (law 001, Enforcement, A(6): "within 15 days of service").',
};

export interface EnforcementLaw {
  /** The law's name as a notice names it, in a sentence ("… in accordance with its {title}"). */
  title: string;
  /** Its part that governs enforcement, as a notice's heading names it. */
  part: string;
  /** Each element's heading (numbered in order on the notice). */
  elements: Record<NoticeElement, string>;
  /** The penalties statement a notice carries when the officer gives none. */
  penalties: string;
  /** Days after service within which a notice may be appealed (the town's setting where the law names none). */
  appealDays: number;
  /**
   * Set when the law names no period for an appeal: why the days are the town's choice, not the law's
   * (printed with the appeal sentence, with the town's reason, `appealReason`).
   */
  appealDaysChosen?: string;
  /** The town's reason for its figure, when the days are its choice (`TownAppeal`). */
  appealReason?: string;
  /** The appeal element's sentence: `{days}` the days, `{by}` the last day to appeal, in words. */
  appealStatement: string;
  /** Who hears an appeal ("the Town", "the Local Board of Health"). */
  appealTo: string;
  /** Whether an appeal is decided after a hearing, recorded with its date and outcome. */
  appealHearing: boolean;
  /**
   * Whether the officer's approval of a correction names the re-inspection it rests on (an inspection of
   * the site made after the correction was reported); where not, one may be named.
   */
  approvalReinspection: boolean;
  /** What a notice is called on this law's documents ("Notice of violation", "Order to correct"). */
  noticeTitle: string;
  /** What the officer may order under this law, each with its words; the first is the default. */
  orderKinds: readonly { id: string; label: string; words: string }[];
  /** What follows when the order is not met by the time fixed, in words (a sentence). */
  whenNotMet: string;
  /**
   * The stop-work order of this law: its section, the officer's power in its words, what the order is
   * called on its document, what it orders (the law's words), and how long it stays in effect.
   */
  stopWork: { section: string; words: string; title: string; order: string; until: string };
  /** What the stop-work order is issued to halt, in words ("land development activity", …). */
  stopWorkOf: string;
  /** The officer who issues notices under it, as a notice names them. */
  officer: string;
  /** How a notice names its parties (the site's `landowner` and `developer`). */
  partyLabels: { landowner: string; developer: string };
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
    appealTo: 'the Town',
    appealHearing: false,
    // "until any violations are corrected and all work previously completed has received approval"
    // (inspection A(2)): the town's approval, on its inspection.
    approvalReinspection: true,
    noticeTitle: 'Notice of violation',
    orderKinds: [
      {
        id: 'correct',
        label: 'Remedial measures',
        words: 'The remedial measures below are to be completed by the time given.',
      },
    ],
    whenNotMet:
      'If the remedial measures are not completed by that time, the Town may issue a stop-work order and the penalties below apply (Town law 001, Enforcement, B and D).',
    stopWork: {
      section: 'Town law 001, Enforcement, B',
      words:
        'The Stormwater Management Officer may require that land development activities be stopped; the order stays in effect until the Town confirms that the land development activity is in compliance.',
      title: 'Stop-work order',
      order:
        'Persons receiving a stop-work order shall be required to halt all land development activities, except those activities that address the violations leading to the stop-work order.',
      until:
        'The stop-work order shall be in effect until the Town confirms that the land development activity is in compliance and the violation has been satisfactorily addressed. Failure to address a stop-work order in a timely manner may result in civil, criminal or monetary penalties in accordance with the enforcement measures authorized in this article (Town law 001, Enforcement, B).',
    },
    stopWorkOf: 'land development activity',
    officer: 'the Stormwater Management Officer',
    partyLabels: { landowner: 'Landowner', developer: 'Developer or applicant' },
  },
  '000': {
    title: 'on-site wastewater treatment law (law 000)',
    part: 'Sections 5.100 B, 5.010 and 6.010',
    elements: {
      parties: 'Owner',
      land: 'The property and its system',
      nature: 'What the Enforcement Officer found',
      remedy: 'The order and the time fixed for it',
      penalties: 'Penalty',
      appeal: 'Appeal to the Local Board of Health',
    },
    penalties:
      'Any person owning, controlling or managing any building, structure, land, or premises therein or whereon ' +
      'there shall be placed on or there exists a structure or system in violation of this ordinance, … and any ' +
      'person who shall omit, neglect, or refuse to do any act required by this ordinance, shall be subject to a ' +
      'civil penalty of not more than ($1,000) to be recovered by the Town Board in any court of competent ' +
      'jurisdiction. Each such person shall be deemed guilty of a separate offense for each day that such ' +
      'violation, disobedience, omission, neglect or refusal shall continue. The penalty provisions of DEC ' +
      'regulations may also apply (Town law 000, Section 6.010).',
    // Section 5.010 gives the appeal to the Local Board of Health without a period: the days are the town's
    // choice (`enforcement.wastewaterAppeal` of the configuration, `withTownAppeal`), 15 unless it says.
    appealDays: TOWN_APPEAL_DEFAULT.days,
    appealDaysChosen: 'Section 5.010 gives the appeal to the Local Board of Health but names no period',
    appealReason: TOWN_APPEAL_DEFAULT.reason,
    appealStatement:
      'Persons adversely affected by this order may appeal to the Local Board of Health, which decides after a hearing (Section 5.010), by filing a written notice of appeal within {days} days of service, by {by}.',
    appealTo: 'the Local Board of Health',
    appealHearing: true,
    // Section 5.100 B: the defects corrected "within a reasonable time"; it names no re-inspection.
    approvalReinspection: false,
    noticeTitle: 'Order of the Enforcement Officer',
    orderKinds: [
      {
        id: 'correct',
        label: 'Order to correct',
        words:
          'The Enforcement Officer determined that the system is not being maintained in compliance with this local law, and orders that the defects be corrected and any misuse abated within the time fixed below (Section 5.100 B).',
      },
      {
        id: 'cease-use',
        label: 'Order to cease use',
        words:
          'The Enforcement Officer determined that the system is not being maintained in compliance with this local law, and orders that use of the system cease until the defects are corrected, within the time fixed below (Section 5.100 B).',
      },
    ],
    whenNotMet:
      'If the prescribed action is not taken within the time fixed by the Enforcement Officer, he/she may revoke the use permit for the system and/or refer the matter to the Local Board of Health for appropriate corrective action (Section 5.100 B).',
    stopWork: {
      section: 'Town law 000, Section 5.030 A 7',
      words:
        'The Enforcement Officer may, by written notice, order all further work stopped on any wastewater treatment system which is being constructed or installed in violation of this local law.',
      title: 'Stop-work order of the Enforcement Officer',
      order:
        'The Enforcement Officer, by this written notice, orders all further work stopped on the wastewater treatment system, which is being constructed or installed in violation of this local law (Section 5.030 A 7).',
      until:
        'The order stays in effect until the Enforcement Officer lifts it in writing. Any person who shall omit, neglect, or refuse to do any act required by this ordinance shall be subject to a civil penalty of not more than ($1,000), each day a separate offense (Section 6.010).',
    },
    stopWorkOf: 'work on the wastewater treatment system',
    officer: 'the Enforcement Officer',
    partyLabels: { landowner: 'Owner', developer: 'Installer or contractor' },
  },
} as const satisfies Record<string, EnforcementLaw>;
export type EnforcementLawId = keyof typeof ENFORCEMENT_LAWS;

/** The law the town's notices of violation followed before a notice named its law (stored without one). */
export const NOTICE_LAW: EnforcementLaw = ENFORCEMENT_LAWS['001'];

/**
 * Which law governs a site's enforcement, by the site's kind (every kind of `SITE_KINDS` in `admin.ts`,
 * which imports the contract and so is not imported here; `test/shared/enforcementLaws.test.ts` holds
 * the two lists together).
 */
export const LAW_OF_SITE_KIND: Readonly<Record<string, EnforcementLawId>> = {
  construction: '001',
  'alternative-system': '000',
  septic: '000',
  'holding-tank': '000',
};

export const isEnforcementLaw = (id: string): id is EnforcementLawId => Object.hasOwn(ENFORCEMENT_LAWS, id);

/**
 * A law with the town's choice of the days to appeal (and its reason) applied, where the law names none
 * (law 000: `enforcement.wastewaterAppeal` of the configuration, handed to the enforcement module at
 * start); a law that names its days is refused.
 */
export function withTownAppeal(law: EnforcementLaw, choice: TownAppeal): EnforcementLaw {
  if (law.appealDaysChosen === undefined)
    throw new Error(
      `${law.title} sets its own days to appeal (${law.appealDays}): the town does not choose them`,
    );
  return { ...law, appealDays: choice.days, appealReason: choice.reason };
}

/**
 * The law of a notice or order as stored (`null`: stored before notices named their law, so 001), as
 * written (a town's choice comes with the notice: `lawOfNotice`).
 */
export const lawOf = (id: string | null | undefined): EnforcementLaw =>
  id !== null && id !== undefined && isEnforcementLaw(id) ? ENFORCEMENT_LAWS[id] : NOTICE_LAW;

/**
 * The law of a notice with the days to appeal it counted (`appealDays` of its answer) and, where those
 * days are the town's choice, the town's reason (`appealReason`; none when the notice does not carry it).
 */
export const lawOfNotice = (v: {
  law?: string | null | undefined;
  appealDays?: number | undefined;
  appealReason?: string | undefined;
}): EnforcementLaw => {
  const law = lawOf(v.law);
  if (v.appealDays === undefined || (v.appealDays === law.appealDays && v.appealReason === undefined))
    return law;
  const { appealReason: _written, ...rest } = law;
  const days = { ...rest, appealDays: v.appealDays };
  return law.appealDaysChosen !== undefined && v.appealReason !== undefined
    ? { ...days, appealReason: v.appealReason }
    : days;
};

/** The law of a site of kind `kind` (a kind not listed: 001's, the town's stormwater law). */
export const lawIdOfSiteKind = (kind: string): EnforcementLawId =>
  Object.hasOwn(LAW_OF_SITE_KIND, kind) ? LAW_OF_SITE_KIND[kind]! : '001';

/** An order kind's words under a law (the law's first when the kind is not one of its). */
export const orderKindOf = (law: EnforcementLaw, id: string | null | undefined) =>
  law.orderKinds.find((k) => k.id === id) ?? law.orderKinds[0]!;

/** The numbered headings of a law's notice, in order: "1. Landowner and developer", … */
export const elementHeadings = (law: EnforcementLaw): Record<NoticeElement, string> =>
  Object.fromEntries(NOTICE_ELEMENTS.map((e, i) => [e, `${i + 1}. ${law.elements[e]}`])) as Record<
    NoticeElement,
    string
  >;

/** 1st, 2nd, 3rd, 4th, 11th, 21st, …: a day's number in words. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * The appeal element's sentence of a law, with its days and the last day to appeal (in words: "the end
 * of June 16, 2026"; before service "the end of the 15th day after the day of service").
 */
export const appealSentence = (law: EnforcementLaw, by: string | undefined): string => {
  const sentence = law.appealStatement
    .replace('{days}', String(law.appealDays))
    .replace('{by}', by ?? `the end of the ${ordinal(law.appealDays)} day after the day of service`);
  const chosen = appealChoiceWords(law);
  return chosen ? `${sentence} ${chosen}` : sentence;
};

/**
 * Where the law names no period for an appeal, that the days are the town's choice and why ("The 15 days
 * to appeal are the town's choice, not the law's: Section 5.010 … names no period; the town's reason: …");
 * empty under a law that sets them.
 */
export function appealChoiceWords(law: EnforcementLaw): string {
  if (law.appealDaysChosen === undefined) return '';
  const reason = law.appealReason ? `; the town's reason: ${law.appealReason}` : '.';
  return `The ${law.appealDays} days to appeal are the town's choice, not the law's: ${law.appealDaysChosen}${reason}`;
}
