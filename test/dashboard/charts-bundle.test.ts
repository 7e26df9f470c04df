/**
 * The dashboard's bundle with its charts: uPlot is in it, zod is not (the charts import only the
 * contract's zod-free parts; the forms load zod from /schemas.js when they first validate), and it stays
 * small (about 125 KB minified, 50 KB compressed, of which uPlot is some 50 KB and 22 KB).
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleDashboard } from '../../gateway/src/api/dashboardBundle.ts';

describe('the dashboard bundle', () => {
  it('carries uPlot and the charts without zod, in under 150 KB', async () => {
    const code = await bundleDashboard();
    expect(code).toContain('u-legend');
    expect(code).toContain('Storm rain so far');
    expect(code).not.toMatch(/ZodError|\$ZodType/);
    expect(code.length).toBeLessThan(150_000);
    expect(gzipSync(code).length).toBeLessThan(60_000);
  });
});
