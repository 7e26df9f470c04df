import { describe, expect, it } from 'vitest';
import { detectFormat, parseHoboCsv, parseLoggerFile } from '../../../gateway/src/import/formats/index.ts';
import { ImportFormatError } from '../../../gateway/src/import/types.ts';
import { HOBO_HEADER, toa5 } from '../support.ts';

describe('bad rows', () => {
  it('an unknown file is refused with a reason', () => {
    expect(() => detectFormat('hello,world\n1,2\n')).toThrow(ImportFormatError);
    expect(() => parseLoggerFile('')).toThrow(/empty/);
  });

  it('bad options are refused with their path', () => {
    expect(() => parseHoboCsv('06/01/2022 10:00:00,1', { skipBefore: '2022-08-08 10:00' })).toThrow(
      /skipBefore/,
    );
  });
});

describe('format detection', () => {
  it('takes a TOA5 environment line for TOA5, after blank lines too', () => {
    expect(detectFormat(toa5('mm', []))).toBe('toa5');
    expect(detectFormat(`\n\n${toa5('mm', [])}`)).toBe('toa5');
  });

  it('takes a date header within the first five lines, or a date in column 1, for a HOBO export', () => {
    expect(detectFormat(`"Plot Title: rain"\n${HOBO_HEADER}\n`)).toBe('hobo-csv');
    expect(detectFormat('06/01/2022 10:00:00,1\n')).toBe('hobo-csv');
    expect(detectFormat('2022-06-01 10:00:00,1\n')).toBe('hobo-csv');
    expect(() => detectFormat('a\nb\nc\nd\ne\nDate Time,Count\n')).toThrow(
      /unrecognised logger file: line 1/,
    );
  });

  it('refuses binary Campbell tables with the advice to export TOA5', () => {
    expect(() => detectFormat('"TOB3","Stn","CR1000X"\n')).toThrow(
      /TOB3 files are not supported: export the table as TOA5/,
    );
  });

  it('reads with the given format instead of detecting one', () => {
    const text = '06/01/2022 10:00:00,1\n';
    expect(parseLoggerFile(text).meta.format).toBe('hobo-csv');
    expect(() => parseLoggerFile(text, { format: 'toa5' })).toThrow(/TOA5: fewer than the four header lines/);
    expect(
      parseLoggerFile(toa5('mm', ['"2022-08-11 19:46:40",7,0.2']), { format: 'toa5' }).tips,
    ).toHaveLength(1);
  });

  it('refuses an unknown format among the options as a bad option', () => {
    expect(() => parseLoggerFile('06/01/2022 10:00:00,1\n', { format: 'csv' as never })).toThrow(
      /bad import options: format/,
    );
  });
});
