/**
 * Work halted by a violation finding (001, inspection A(2)): from the first inspection with a violation
 * not yet corrected and approved, naming its practices; an approved notice citing the inspection ends it,
 * a notice only issued or corrected does not.
 */
import { describe, expect, it } from 'vitest';
import { workHalted } from '../../gateway/src/enforcement/halted.ts';

const finding = (practice: string, status: 'ok' | 'maintenance' | 'violation') => ({
  practice,
  status,
  note: '',
  photos: [],
});
const practices = [
  { id: 'fence', label: 'Silt fence, north', kind: 'silt-fence' as const },
  { id: 'inlet', label: 'Inlet protection', kind: 'inlet-protection' as const },
];
const first = { id: 'i-1', at: '2026-11-02T15:00:00.000Z', findings: [finding('fence', 'violation')] };
const second = {
  id: 'i-2',
  at: '2026-11-05T15:00:00.000Z',
  findings: [finding('fence', 'ok'), finding('inlet', 'violation')],
};

describe('workHalted', () => {
  it('is null without a violation finding', () => {
    expect(
      workHalted([{ id: 'i-0', at: first.at, findings: [finding('fence', 'maintenance')] }], []),
    ).toBeNull();
  });

  it('halts from the first open violation, naming every practice found in violation', () => {
    expect(workHalted([second, first], [], practices)).toEqual({
      since: first.at,
      practices: ['Silt fence, north', 'Inlet protection'],
      inspectionIds: ['i-1', 'i-2'],
    });
  });

  it('ends for an inspection only when a notice citing it is approved', () => {
    for (const status of ['issued', 'appealed', 'corrected'] as const)
      expect(workHalted([first], [{ inspectionId: 'i-1', status }], practices)).not.toBeNull();
    expect(workHalted([first], [{ inspectionId: 'i-1', status: 'approved' }], practices)).toBeNull();
    expect(workHalted([first, second], [{ inspectionId: 'i-1', status: 'approved' }], practices)).toEqual({
      since: second.at,
      practices: ['Inlet protection'],
      inspectionIds: ['i-2'],
    });
  });
});
