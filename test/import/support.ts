/** Shared pieces of the logger-import tests. */

export const utc = (s: string) => Date.parse(s);

export const HOBO_HEADER =
  '#,"Date Time, GMT-08:00","Temp, °C (LGR S/N: 1)","Ext. Line Event, units (LGR S/N: 2)",Coupler Attached (LGR S/N: 1),Host Connected (LGR S/N: 1),Stopped (LGR S/N: 1),End Of File (LGR S/N: 1)';

/** A TOA5 table with a Rain_mm_Tot column in the given units and the given data rows. */
export const toa5 = (units: string, rows: string[]) =>
  [
    '"TOA5","Stn","CR1000X","123","OS","CPU:x.CR1X","1","RainEvent"',
    '"TIMESTAMP","RECORD","Rain_mm_Tot"',
    `"TS","RN","${units}"`,
    '"","","Tot"',
    ...rows,
  ].join('\r\n');
