import { describe, expect, it } from 'vitest';
import { cellAt, dataRows, splitCsv, splitLines, trimmedCells } from '../../gateway/src/import/csv.ts';
import type { SkippedRow } from '../../gateway/src/import/types.ts';

describe('CSV reading', () => {
  it('splits LF and CRLF lines, drops a last empty line and a byte-order mark', () => {
    expect(splitLines('\uFEFFa,b\r\nc,d\n\ne\r\n')).toEqual(['a,b', 'c,d', '', 'e']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('x')).toEqual(['x']);
  });

  it('groups commas inside double quotes and reads "" inside quotes as a quote', () => {
    expect(splitCsv('a,b,,c')).toEqual(['a', 'b', '', 'c']);
    expect(splitCsv('"Date Time, GMT-08:00",1')).toEqual(['Date Time, GMT-08:00', '1']);
    expect(splitCsv('"say ""hi""",x')).toEqual(['say "hi"', 'x']);
    expect(splitCsv('"",""')).toEqual(['', '']);
  });

  it('trims cells and reads a missing cell as empty', () => {
    expect(trimmedCells(' a , "b " ,c')).toEqual(['a', 'b', 'c']);
    expect(cellAt([' 1 ', '2'], 0)).toBe('1');
    expect(cellAt(['1'], 3)).toBe('');
  });

  it('gives the data rows with their 1-based line and records blank lines as skipped', () => {
    const skipped: SkippedRow[] = [];
    const rows = [...dataRows(['header', 'a,1', '  ', 'b,2'], 1, skipped)];
    expect(rows).toEqual([
      { line: 2, cells: ['a', '1'] },
      { line: 4, cells: ['b', '2'] },
    ]);
    expect(skipped).toEqual([{ line: 3, kind: 'blank', reason: 'empty line' }]);
  });
});
