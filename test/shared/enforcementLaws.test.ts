/**
 * The enforcement laws as data: each site kind has its law, each law every element and word a notice
 * needs, 000's penalty as Section 6.010 words it and its appeal to the Local Board of Health (5.010);
 * and the appeal window in words, counted by `withinDays` in the site's zone (never UTC).
 */
import { describe, expect, it } from 'vitest';
import { SITE_KINDS } from '../../shared/src/admin.ts';
import {
  ENFORCEMENT_LAWS,
  LAW_OF_SITE_KIND,
  lawIdOfSiteKind,
  lawOf,
  NOTICE_ELEMENTS,
  orderKindOf,
} from '../../shared/src/api/enforcementLaws.ts';
import { statusOfSteps } from '../../shared/src/api/enforcementWords.ts';
import { appealWindowWords, NOT_SERVED } from '../../shared/src/api/serviceWords.ts';
import { withinDays } from '../../shared/src/days.ts';

describe('the enforcement laws as data', () => {
  it('gives every site kind its law: construction 001, wastewater systems 000', () => {
    expect(Object.keys(LAW_OF_SITE_KIND).sort()).toEqual([...SITE_KINDS].sort());
    expect(SITE_KINDS.map((k) => [k, lawIdOfSiteKind(k)])).toEqual([
      ['construction', '001'],
      ['alternative-system', '000'],
      ['septic', '000'],
      ['holding-tank', '000'],
    ]);
  });

  it('has every element, order kind and word a notice needs, for each law', () => {
    for (const law of Object.values(ENFORCEMENT_LAWS)) {
      for (const e of NOTICE_ELEMENTS) expect(law.elements[e].length).toBeGreaterThan(0);
      expect(law.orderKinds.length).toBeGreaterThan(0);
      expect(law.appealDays).toBe(15);
      expect(law.appealStatement).toContain('{days}');
      expect(law.appealStatement).toContain('{by}');
    }
  });

  it("states 000's penalty in the words of Section 6.010, and its appeal to the Local Board of Health", () => {
    const law = ENFORCEMENT_LAWS['000'];
    expect(law.penalties).toContain('civil penalty of not more than ($1,000)');
    expect(law.penalties).toContain('separate offense for each day that such violation');
    expect(law.appealTo).toBe('the Local Board of Health');
    expect(law.appealHearing).toBe(true);
    expect(law.orderKinds.map((k) => k.label)).toEqual(['Order to correct', 'Order to cease use']);
    expect(law.whenNotMet).toContain('revoke the use permit');
    expect(law.whenNotMet).toContain('refer the matter to the Local Board of Health');
    expect(law.stopWork.section).toBe('Town law 000, Section 5.030 A 7');
    expect(ENFORCEMENT_LAWS['001'].appealHearing).toBe(false);
  });

  it('reads a notice stored before notices named their law as 001, and an unknown order kind as the first', () => {
    expect(lawOf(null)).toBe(ENFORCEMENT_LAWS['001']);
    expect(lawOf('000')).toBe(ENFORCEMENT_LAWS['000']);
    expect(orderKindOf(ENFORCEMENT_LAWS['000'], 'nonsense').id).toBe('correct');
  });

  it('derives a status that a service or an upheld hearing does not change, and a reversal does', () => {
    expect(statusOfSteps([{ kind: 'served' }])).toBe('issued');
    expect(
      statusOfSteps([{ kind: 'served' }, { kind: 'appealed' }, { kind: 'heard', outcome: 'upheld' }]),
    ).toBe('appealed');
    expect(statusOfSteps([{ kind: 'appealed' }, { kind: 'heard', outcome: 'reversed' }])).toBe('reversed');
  });
});

describe('the appeal window in words', () => {
  const tz = 'America/New_York';
  it('before service: not yet served, not started', () => {
    expect(appealWindowWords({ law: '000' }, tz)).toBe(NOT_SERVED);
  });
  it('from service, to the end of the 15th local day, across the end of daylight time', () => {
    const served = Date.parse('2026-10-20T23:30:00Z'); // 7:30 PM EDT, October 20
    const by = withinDays(served, 15, tz);
    expect(new Date(by).toISOString()).toBe('2026-11-05T05:00:00.000Z'); // midnight EST
    const words = appealWindowWords(
      { law: '000', servedAt: new Date(served).toISOString(), appealBy: new Date(by).toISOString() },
      tz,
    );
    expect(words).toBe(
      'Served Oct 20, 2026, 7:30 PM EDT; may be appealed to the Local Board of Health within 15 days of service, until the end of November 4, 2026.',
    );
    // In UTC the service is already October 21: the local day is what counts.
    expect(words).not.toContain('November 5');
  });
});
