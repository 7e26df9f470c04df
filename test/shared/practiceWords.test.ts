/**
 * A site's practices over time, as the gateway, the inspection form and the change history read them: which
 * are in force at a time (a retired one from its retirement on), the id a new practice takes from its label
 * (never one the site has, retired ones included), and a change of the list in words.
 */
import { describe, expect, it } from 'vitest';
import { practiceChanges, practiceIdFor, practicesInForce } from '../../shared/src/api/practiceWords.ts';

const RETIRED = '2026-06-10T14:00:00Z';
const list = [
  { id: 'silt-n', label: 'Silt fence, north boundary', kind: 'silt-fence' },
  { id: 'seeding', label: 'Temporary seeding', kind: 'stabilization', retired: RETIRED },
];

describe("a site's practices over time", () => {
  it('counts a retired practice until its retirement, not from it', () => {
    const t = Date.parse(RETIRED);
    expect(practicesInForce(list, t - 1).map((p) => p.id)).toEqual(['silt-n', 'seeding']);
    expect(practicesInForce(list, t).map((p) => p.id)).toEqual(['silt-n']);
    expect(practicesInForce(undefined, t)).toEqual([]);
  });

  it('makes an id from the label, never one the site has or had', () => {
    expect(practiceIdFor('Inlet protection at catch basin CB-2', [])).toBe(
      'inlet-protection-at-catch-basin-cb-2',
    );
    expect(practiceIdFor('Temporary  seeding!', ['temporary-seeding'])).toBe('temporary-seeding-2');
    expect(practiceIdFor('Temporary seeding', ['temporary-seeding', 'temporary-seeding-2'])).toBe(
      'temporary-seeding-3',
    );
    expect(practiceIdFor('Clôture de limon', [])).toBe('cloture-de-limon');
    expect(practiceIdFor('—', [])).toBe('practice');
    const long = practiceIdFor('x'.repeat(300), []);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);
  });

  it('tells a change of the list in words, times in the zone', () => {
    const next = [
      { id: 'silt-n', label: 'Silt fence, north and east', kind: 'other' },
      { id: 'seeding', label: 'Temporary seeding', kind: 'stabilization', retired: RETIRED },
      { id: 'trap-1', label: 'Sediment trap no. 1', kind: 'sediment-trap' },
    ];
    const before = [
      list[0]!,
      { ...list[1]!, retired: undefined },
      { id: 'typo', label: 'Silt fense', kind: 'silt-fence' },
    ];
    expect(practiceChanges(before, next, 'America/New_York')).toEqual([
      "practice 'Silt fence, north boundary' renamed 'Silt fence, north and east'",
      "practice 'Silt fence, north and east' changed from silt fence to other practice",
      "practice 'Temporary seeding' retired from Jun 10, 2026, 10:00 AM EDT",
      "practice 'Sediment trap no. 1' added (sediment trap)",
      "practice 'Silt fense' removed",
    ]);
  });
});
