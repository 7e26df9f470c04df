/**
 * An inspection's signature, without zod (the dashboard's form and page, the report and the schema in
 * `findings.ts` share it): the statement the inspector signs, how a drawn signature is written, and its
 * bounds.
 *
 * A drawn signature is kept as the strokes' points, written as SVG path data of one strict form: each
 * stroke `M x y` followed by `L x y` for each further point, integer coordinates in a box of
 * SIGNATURE_BOX (0,0 top left), single spaces between. Nothing else is accepted (no other command, no
 * markup), so a drawing is shown by putting it in a `<path d="…">` of an `<svg>` the page itself builds:
 * it cannot carry a tag, an attribute or a script, and it is a few kilobytes, logged with the inspection.
 */

/**
 * What the inspector certifies by signing. Town law 001 has no certification statement for inspection
 * reports (its certification statement is the contractor's for the SWPPP); these words follow its duty
 * (maintenance during construction A (2): the developer "or his or her representative … shall inspect and
 * document the effectiveness of all erosion and sediment control practices").
 */
export const SIGNATURE_STATEMENT =
  'I certify that this inspection was made by me or under my direction, and that what this report records is true and complete to the best of my knowledge.';

export const SIGNATURE_METHODS = ['typed', 'drawn'] as const;
export type SignatureMethod = (typeof SIGNATURE_METHODS)[number];

/** The box a drawing's coordinates lie in (the signature pad's, whatever the screen's size). */
export const SIGNATURE_BOX = { width: 600, height: 200 } as const;

/** The longest drawing (characters of its path data): about 1,500 points. */
export const SIGNATURE_DRAWING_MAX = 16_384;

/** The longest name a signature carries. */
export const SIGNATURE_NAME_MAX = 200;

/** A drawing's form: strokes of `M x y` then `L x y`, integers, single spaces. */
const PATH = /^M\d{1,3} \d{1,3}(?: [ML]\d{1,3} \d{1,3})*$/;

/** What is wrong with a drawing, in words (none when it is a drawing of the signature pad's form). */
export function drawingProblem(d: string): string | undefined {
  if (d.length > SIGNATURE_DRAWING_MAX)
    return `a drawn signature is at most ${SIGNATURE_DRAWING_MAX.toLocaleString('en-US')} characters: sign again, more simply`;
  if (!PATH.test(d))
    return 'a drawn signature is its strokes\' points only ("M10 20 L12 24 …"), nothing else: sign again on the pad';
  const numbers = d.match(/\d+/g) ?? [];
  for (let n = 0; n < numbers.length; n += 2)
    if (Number(numbers[n]) > SIGNATURE_BOX.width || Number(numbers[n + 1]) > SIGNATURE_BOX.height)
      return `a drawn signature lies within ${SIGNATURE_BOX.width} by ${SIGNATURE_BOX.height}: sign again on the pad`;
  return undefined;
}

/** A drawing's strokes, each its points (for a drawing of the pad's form; others give none). */
export function drawingStrokes(d: string): Array<Array<[number, number]>> {
  if (drawingProblem(d)) return [];
  const strokes: Array<Array<[number, number]>> = [];
  for (const m of d.matchAll(/([ML])(\d+) (\d+)/g)) {
    const point: [number, number] = [Number(m[2]), Number(m[3])];
    if (m[1] === 'M') strokes.push([point]);
    else strokes.at(-1)?.push(point);
  }
  return strokes;
}

/** Strokes as a drawing (points rounded into the box; a stroke of one point is a dot). */
export function strokesDrawing(strokes: ReadonlyArray<ReadonlyArray<readonly [number, number]>>): string {
  const clamp = (v: number, max: number) => Math.min(max, Math.max(0, Math.round(v)));
  return strokes
    .filter((s) => s.length > 0)
    .map((s) => {
      const pts = s.map(([x, y]) => `${clamp(x, SIGNATURE_BOX.width)} ${clamp(y, SIGNATURE_BOX.height)}`);
      // A dot: the same point twice, so that a line cap draws it.
      if (pts.length === 1) pts.push(pts[0]!);
      return pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${p}`).join(' ');
    })
    .join(' ');
}

/** How it was signed, in words. */
export const SIGNATURE_METHOD_LABELS: Record<SignatureMethod, string> = {
  typed: 'signed with the typed name',
  drawn: 'signed by hand on the screen',
};
