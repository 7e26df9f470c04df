/**
 * The days to appeal where the law names none (law 000, Section 5.010) are the town's choice: 15 unless
 * its configuration says, printed with the appeal sentence with the town's reason; the days of law 001
 * ("within 15 days of service") are the law's, and the town cannot set them. A notice's own days (those
 * its service counted) are what its words say.
 */
import { describe, expect, it } from 'vitest';
import {
  appealChoiceWords,
  appealSentence,
  ENFORCEMENT_LAWS,
  lawOf,
  lawOfNotice,
  ordinal,
  withTownAppeal,
} from '../../shared/src/api/enforcementLaws.ts';
import { appealWindowWords } from '../../shared/src/api/serviceWords.ts';

describe("the days to appeal: the law's or the town's", () => {
  it("law 000 names no period: 15 days by default, said to be the town's choice, with its reason", () => {
    const law = lawOf('000');
    expect(law.appealDays).toBe(15);
    const s = appealSentence(law, 'the end of June 16, 2026');
    expect(s).toContain('within 15 days of service, by the end of June 16, 2026.');
    expect(s).toContain(
      "The 15 days to appeal are the town's choice, not the law's: Section 5.010 gives the appeal to the Local Board of Health but names no period; the town's reason: the same period as the notices of its stormwater law",
    );
  });

  it('law 001 sets its 15 days: nothing is said of a choice, and the town cannot set them', () => {
    expect(appealChoiceWords(lawOf('001'))).toBe('');
    expect(appealSentence(lawOf('001'), 'the end of June 16, 2026')).not.toContain('choice');
    expect(() => withTownAppeal(lawOf('001'), { days: 30, reason: 'More time.' })).toThrow(
      /sets its own days/,
    );
    expect(lawOf('001').appealDays).toBe(15);
  });

  it("the town's figure and reason reach every law 000 notice's words; the entry as written stays", () => {
    const town = withTownAppeal(lawOf('000'), { days: 21, reason: 'three weeks, as the Board decided.' });
    expect(town.appealDays).toBe(21);
    // A notice carries the town's figure and reason; its words follow them.
    expect(
      lawOfNotice({ law: '000', appealDays: 21, appealReason: 'three weeks, as the Board decided.' }),
    ).toEqual(town);
    expect([1, 2, 3, 4, 11, 12, 13, 15, 21, 22, 23, 30].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '15th',
      '21st',
      '22nd',
      '23rd',
      '30th',
    ]);
    expect(appealSentence(town, undefined)).toContain(
      "within 21 days of service, by the end of the 21st day after the day of service. The 21 days to appeal are the town's choice",
    );
    expect(appealChoiceWords(town)).toContain("the town's reason: three weeks, as the Board decided.");
    expect(ENFORCEMENT_LAWS['000'].appealDays).toBe(15);
    // A notice served when the town allowed 15 days says 15, whatever the town allows now.
    expect(lawOfNotice({ law: '000', appealDays: 15 }).appealDays).toBe(15);
    // A notice whose days are not the town's figure of today prints no reason it does not know.
    expect(appealChoiceWords(lawOfNotice({ law: '000', appealDays: 20 }))).not.toContain("town's reason");
    const words = appealWindowWords(
      { law: '000', appealDays: 15, servedAt: '2026-06-01T14:00:00Z', appealBy: '2026-06-17T04:00:00Z' },
      'America/New_York',
    );
    expect(words).toContain('within 15 days of service, until the end of June 16, 2026');
  });
});
