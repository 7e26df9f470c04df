import { describe, expect, it } from 'vitest';
import { chooseZone, parseIsoTime, timeReader } from '../../gateway/src/import/time.ts';
import { ImportFormatError } from '../../gateway/src/import/types.ts';

describe('logger times', () => {
  it('reads ISO wall times with their resolution', () => {
    expect(parseIsoTime('2022-08-11 19:46')?.resolutionMs).toBe(60_000);
    expect(parseIsoTime('2022-08-11T19:46:40')?.resolutionMs).toBe(1000);
    expect(parseIsoTime('2022-08-11 19:46:40.25')).toMatchObject({ wall: { ms: 250 }, resolutionMs: 10 });
    expect(parseIsoTime('2022-08-11')).toBeUndefined();
  });

  it('reads times in the chosen zone and refuses dates that do not exist', () => {
    const read = timeReader({ kind: 'offset', minutes: -480 }, parseIsoTime);
    expect(read('2022-08-11 12:00:00')).toEqual({
      ts: Date.parse('2022-08-11T20:00:00Z'),
      resolutionMs: 1000,
    });
    expect(read('2022-02-30 12:00:00')).toBeUndefined();
    expect(read('2022-08-11 24:00:00')).toBeUndefined();
  });

  it("takes the options' zone over the file's, the file's over UTC, and says which in the note", () => {
    const file = { minutes: -480, label: 'GMT-08:00' };
    expect(chooseZone({ utcOffsetMinutes: -300 }, file)).toMatchObject({
      zone: { kind: 'offset', minutes: -300 },
      note: expect.stringContaining('the file says "GMT-08:00"'),
    });
    expect(chooseZone({ timeZone: 'America/Denver' }).zone).toEqual({ kind: 'iana', name: 'America/Denver' });
    expect(chooseZone({}, file).zone).toEqual({ kind: 'offset', minutes: -480 });
    expect(chooseZone({}).note).toMatch(/no time zone: times read as UTC/);
    expect(() => chooseZone({ timeZone: 'Mars/Base' })).toThrow(ImportFormatError);
  });
});
