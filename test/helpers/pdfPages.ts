/**
 * A PDF's pages as colour images, rendered by pdftoppm (Debian's poppler-utils), to read pixel by pixel:
 * how much of a colour a page shows (a photo printed), and ink in the page's rightmost strip (a box cut
 * at the margin).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface RgbPage {
  w: number;
  h: number;
  /** Three bytes a pixel, row by row. */
  px: Buffer;
}

/** The pages of the PDF at `file`, rendered at `dpi` into images beside it. */
export function pdfPages(file: string, dpi = 100): RgbPage[] {
  const stem = `${file}-page`;
  execFileSync('pdftoppm', ['-r', String(dpi), file, stem]);
  const base = stem.slice(dirname(stem).length + 1);
  return readdirSync(dirname(file))
    .filter((f) => f.startsWith(`${base}-`) && f.endsWith('.ppm'))
    .sort()
    .map((f) => {
      const b = readFileSync(join(dirname(file), f));
      const m = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(b.subarray(0, 40).toString('latin1'));
      if (!m) throw new Error(`${f} is not a colour image`);
      return { w: Number(m[1]), h: Number(m[2]), px: b.subarray(m[0].length) };
    });
}

/** How many pixels of the page are of the colour `is` accepts. */
export function pixelsOf(p: RgbPage, is: (r: number, g: number, b: number) => boolean): number {
  let n = 0;
  for (let i = 0; i + 2 < p.px.length; i += 3) if (is(p.px[i]!, p.px[i + 1]!, p.px[i + 2]!)) n++;
  return n;
}

/** Ink (any pixel darker than the paper's light greys) in the rightmost 4% of the page. */
export function inkInRightStrip(p: RgbPage): number {
  let n = 0;
  for (let y = 0; y < p.h; y++)
    for (let x = Math.floor(p.w * 0.96); x < p.w; x++) {
      const i = (y * p.w + x) * 3;
      if ((p.px[i]! + p.px[i + 1]! + p.px[i + 2]!) / 3 < 200) n++;
    }
  return n;
}
