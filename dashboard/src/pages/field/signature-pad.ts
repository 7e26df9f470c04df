/**
 * The inspection form's signature, as e-signature forms have it: the statement the inspector certifies,
 * their name typed (required to sign), and either a signature drawn in the box (mouse, pen or finger:
 * pointer events, the page does not scroll while drawing) or the typed name adopted as the signature
 * ("Sign with my typed name", shown in a script hand). "Clear" starts again. The drawing is kept as its
 * strokes' points in the pad's own box (`signatureWords.ts`), whatever the size of the screen.
 */
import type { Signature } from '../../../../shared/src/api/findings.ts';
import {
  drawingStrokes,
  SIGNATURE_BOX,
  SIGNATURE_DRAWING_MAX,
  SIGNATURE_NAME_MAX,
  SIGNATURE_STATEMENT,
  strokesDrawing,
} from '../../../../shared/src/api/signatureWords.ts';
import { h, replace } from '../../ui/dom.js';

type Point = [number, number];

let strokes: Point[][] = [];
let adopted = false;
let pad: HTMLCanvasElement | undefined;
let nameInput: HTMLInputElement | undefined;
let typedMark: HTMLElement | undefined;
let state: HTMLElement | undefined;

function redraw() {
  const c = pad?.getContext('2d');
  if (!pad || !c) return;
  c.clearRect(0, 0, pad.width, pad.height);
  c.lineWidth = 4;
  c.lineCap = 'round';
  c.lineJoin = 'round';
  c.strokeStyle = '#1d1d1f';
  for (const s of strokes) {
    c.beginPath();
    s.forEach(([x, y], i) => {
      if (i === 0) c.moveTo(x, y);
      else c.lineTo(x, y);
    });
    if (s.length === 1) c.lineTo(s[0]![0], s[0]![1]);
    c.stroke();
  }
}

/** What the block says now: drawn, signed with the typed name, or not signed yet. */
function show() {
  if (!typedMark || !state || !pad) return;
  const name = nameInput?.value.trim() ?? '';
  typedMark.hidden = !adopted;
  typedMark.textContent = adopted ? name : '';
  pad.hidden = adopted;
  state.textContent = adopted
    ? `Signed with the typed name ${name}.`
    : strokes.length
      ? 'Signed in the box.'
      : 'Not signed yet: draw your signature in the box, or sign with your typed name.';
}

/** A pointer's place in the pad's own box. */
function at(e: PointerEvent): Point {
  const r = pad!.getBoundingClientRect();
  return [
    ((e.clientX - r.left) / Math.max(1, r.width)) * SIGNATURE_BOX.width,
    ((e.clientY - r.top) / Math.max(1, r.height)) * SIGNATURE_BOX.height,
  ];
}

function bindPad(c: HTMLCanvasElement) {
  let drawing = false;
  c.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    drawing = true;
    c.setPointerCapture(e.pointerId);
    strokes.push([at(e)]);
    redraw();
  });
  c.addEventListener('pointermove', (e) => {
    if (!drawing) return;
    e.preventDefault();
    const p = at(e);
    const s = strokes.at(-1)!;
    const last = s.at(-1)!;
    // Points a pixel apart or more: a signature stays a few kilobytes.
    if (Math.hypot(p[0] - last[0], p[1] - last[1]) < 1.5) return;
    // Past the bound, the stroke stops growing (the pad says so).
    if (strokesDrawing(strokes).length > SIGNATURE_DRAWING_MAX - 20) return;
    s.push(p);
    redraw();
  });
  const end = () => {
    if (!drawing) return;
    drawing = false;
    show();
  };
  c.addEventListener('pointerup', end);
  c.addEventListener('pointercancel', end);
}

/** Draws the signature block into its fieldset (empty: nothing signed). */
export function renderSignature(el: HTMLElement) {
  strokes = [];
  adopted = false;
  nameInput = h('input', {
    id: 'i-sign-name',
    type: 'text',
    autocomplete: 'name',
    maxlength: SIGNATURE_NAME_MAX,
  }) as HTMLInputElement;
  nameInput.addEventListener('input', () => {
    // Typed here: no longer the inspector's name as typed above.
    nameInput!.dataset.edited = '1';
    show();
  });
  pad = h('canvas', {
    id: 'i-sign-pad',
    class: 'signature-pad',
    width: SIGNATURE_BOX.width,
    height: SIGNATURE_BOX.height,
    role: 'img',
    'aria-label': 'Signature box: draw your signature here',
  }) as HTMLCanvasElement;
  bindPad(pad);
  typedMark = h('p', { id: 'i-sign-typed', class: 'signature-typed', hidden: true });
  state = h('p', { id: 'i-sign-state', class: 'small muted', 'aria-live': 'polite' });
  replace(
    el,
    h('legend', null, 'Signature'),
    h('p', { class: 'signature-statement', id: 'i-sign-statement' }, SIGNATURE_STATEMENT),
    h('label', { for: 'i-sign-name' }, 'Your name, as you sign'),
    nameInput,
    pad,
    typedMark,
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          id: 'i-sign-typed-button',
          class: 'secondary',
          onclick: () => {
            if (!nameInput?.value.trim()) {
              state!.textContent = 'Type your name first: it is the signature.';
              nameInput?.focus();
              return;
            }
            strokes = [];
            adopted = true;
            redraw();
            show();
          },
        },
        'Sign with my typed name',
      ),
      h(
        'button',
        { type: 'button', id: 'i-sign-clear', class: 'secondary', onclick: () => clearSignature() },
        'Clear',
      ),
    ),
    state,
  );
  show();
}

/** Starts the signature again (the name stays). */
export function clearSignature() {
  strokes = [];
  adopted = false;
  redraw();
  show();
}

/** The inspector's name as typed above, until the person types another here. */
export function suggestSignatureName(name: string) {
  if (nameInput && !nameInput.dataset.edited) {
    nameInput.value = name;
    show();
  }
}

/**
 * The signature given, or a problem in words. `required`: the inspection must be signed (the
 * developer's storm and routine inspections); otherwise none given is none sent.
 */
export function readSignature(required: boolean): { signature?: Signature; problem?: string } {
  const name = nameInput?.value.trim() ?? '';
  const signed = adopted || strokes.length > 0;
  if (!signed)
    return required
      ? {
          problem:
            'Sign the inspection before recording it: type your name under the statement, then draw your signature in the box or press "Sign with my typed name".',
        }
      : {};
  if (!name)
    return { problem: 'Type your name under the statement: a signature needs the name of who signed.' };
  if (adopted) return { signature: { name, method: 'typed' } };
  return { signature: { name, method: 'drawn', drawing: strokesDrawing(strokes) } };
}

/** Puts a signature back (an inspection the gateway refused, opened to fix it). */
export function fillSignature(s: Signature | undefined) {
  if (nameInput) {
    nameInput.value = s?.name ?? '';
    if (s) nameInput.dataset.edited = '1';
  }
  adopted = s?.method === 'typed';
  strokes = s?.method === 'drawn' && s.drawing ? drawingStrokes(s.drawing) : [];
  redraw();
  show();
}
