/**
 * The dashboard's bundle with its charts: uPlot is in it, zod is not (the charts import only the
 * contract's zod-free parts; the forms load zod from /schemas.js when they first validate), and it stays
 * small (about 140 KB minified at start, under a budget of 150 KB; under 60 KB compressed; of which uPlot is some 50 KB and 22 KB); a
 * construction site's enforcement part (notices of violation, stop-work forms) and its records part load
 * with that page.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  buildDashboard,
  bundleDashboard,
  bundleField,
  bundleWorker,
} from '../../gateway/src/api/dashboardBundle.ts';

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
    // 30 KB before the signature pad and the correction's photo picker shared with the site page (about 2 KB).
    expect(code.length).toBeLessThan(32_000);
    // And the page's own bundle does not carry it.
    expect(await bundleDashboard()).not.toContain('Needs maintenance');
  });

  it('bundles the service worker as a classic script that never answers the API from a copy', async () => {
    const code = await bundleWorker();
    expect(code).not.toMatch(/^\s*(import|export)\b/m);
    expect(code).toContain('/field.js');
    expect(code).not.toContain('/api/');
  });

  it('loads the enforcement part of a site page only with that page, without zod', async () => {
    const { files, initial } = await buildDashboard();
    const lazy = [...files].filter(([name]) => name.startsWith('chunks/enforcement-'));
    expect(lazy).toHaveLength(1);
    const [, code] = lazy[0]!;
    expect(code).toContain('Issue a notice of violation');
    expect(initial).not.toContain('Issue a notice of violation');
    // The banner is in the first bundle: the overview shows it.
    expect(initial).toContain('Stop-work order since');
    for (const [, text] of files) expect(text).not.toMatch(/ZodError|\$ZodType/);
  });

  it("loads the developer's records part (milestones, stabilization, acceptance) only with that page", async () => {
    const { files, initial } = await buildDashboard();
    const lazy = [...files].filter(([, code]) => code.includes('Record the final stabilization of the site'));
    expect(lazy.map(([name]) => name)).toEqual([expect.stringMatching(/^chunks\/records-/)]);
    const [, code] = lazy[0]!;
    expect(code).toContain('Passed with no notice');
    expect(code).toContain('Record when a milestone is expected');
    for (const words of ['Record the final stabilization of the site', 'Passed with no notice'])
      expect(initial).not.toContain(words);
  });
});
