/**
 * The dashboard's bundle with its charts: uPlot is in it, zod is not (the charts import only the
 * contract's zod-free parts; the forms load zod from /schemas.js when they first validate), and it stays
 * small (about 125 KB minified, 50 KB compressed, of which uPlot is some 50 KB and 22 KB).
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bundleDashboard, bundleField, bundleWorker } from '../../gateway/src/api/dashboardBundle.ts';

describe('the dashboard bundle', () => {
  it('carries uPlot and the charts without zod, in under 150 KB', async () => {
    const code = await bundleDashboard();
    expect(code).toContain('u-legend');
    expect(code).toContain('Storm rain so far');
    expect(code).not.toMatch(/ZodError|\$ZodType/);
    expect(code.length).toBeLessThan(150_000);
    expect(gzipSync(code).length).toBeLessThan(60_000);
  });

  it("keeps the inspection form apart, without zod, sharing the page's session and sites", async () => {
    const code = await bundleField();
    expect(code).toContain('Needs maintenance');
    expect(code).not.toMatch(/ZodError|\$ZodType/);
    // The API session, the sites and the phone's store are the page's: imported, never bundled twice.
    expect(code).toMatch(/from"\.\/app\.js"/);
    expect(code).not.toContain('x-csrf-token');
    expect(code.length).toBeLessThan(30_000);
    // And the page's own bundle does not carry it.
    expect(await bundleDashboard()).not.toContain('Needs maintenance');
  });

  it('bundles the service worker as a classic script that never answers the API from a copy', async () => {
    const code = await bundleWorker();
    expect(code).not.toMatch(/^\s*(import|export)\b/m);
    expect(code).toContain('/field.js');
    expect(code).not.toContain('/api/');
  });
});
