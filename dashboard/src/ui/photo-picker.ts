/**
 * Photos chosen or taken on the spot for a form (an inspection's practice, a correction report): an "Add
 * photo" button that opens the camera or the files, each photo made smaller on the phone when it is large
 * (`photos.ts`), shown as a thumbnail with its size and a "Remove" button before anything is sent, and the
 * reason in words when the phone cannot read one.
 */
import { h, replace } from './dom.js';
import { formatBytes, preparePhoto, type QueuedPhoto, UnreadablePhoto } from './photos.js';

/** A photo in a form: its Blob and the object URL of its thumbnail. */
export type PickedPhoto = QueuedPhoto & { url: string };

export interface PhotoPicker {
  /** The button with its file input, the line that tells a problem, and the thumbnails. */
  readonly parts: HTMLElement[];
  /** The photos chosen, in order. */
  photos(): PickedPhoto[];
  /** Puts photos back (a form reopened to fix it). */
  set(blobs: readonly Blob[]): void;
  /** Forgets the photos (their thumbnails' URLs released). */
  clear(): void;
}

/** A picker whose file input is `${id}` (its label the button). */
export function photoPicker(id: string, label = 'Add photo'): PhotoPicker {
  let list: PickedPhoto[] = [];
  const thumbs = h('div', { class: 'thumbs', 'data-thumbs': id });
  const problem = h('p', { class: 'msg', role: 'status' });
  const file = h('input', {
    id,
    class: 'sr-only',
    type: 'file',
    accept: 'image/jpeg,image/png,image/webp',
    capture: 'environment',
    multiple: true,
  }) as HTMLInputElement;

  const draw = () =>
    replace(
      thumbs,
      list.map((p, i) =>
        h(
          'figure',
          { class: 'thumb' },
          h('img', { src: p.url, alt: `Photo ${i + 1}` }),
          h(
            'figcaption',
            { class: 'small' },
            formatBytes(p.blob.size),
            ' ',
            h(
              'button',
              {
                type: 'button',
                class: 'linklike',
                'aria-label': `Remove photo ${i + 1}`,
                onclick: () => {
                  URL.revokeObjectURL(p.url);
                  list.splice(i, 1);
                  draw();
                },
              },
              'Remove',
            ),
          ),
        ),
      ),
    );

  const add = async () => {
    const files = [...(file.files ?? [])];
    file.value = '';
    problem.className = 'msg';
    problem.textContent = files.length ? 'Preparing the photo…' : '';
    const bad: string[] = [];
    for (const f of files) {
      try {
        const blob = await preparePhoto(f);
        list.push({ blob, url: URL.createObjectURL(blob) });
      } catch (e) {
        if (!(e instanceof UnreadablePhoto)) throw e;
        console.warn('photo not read', e);
        bad.push(f.name || 'a photo');
      }
    }
    problem.textContent = bad.length
      ? `This phone could not read ${bad.join(', ')}: take the photo again as a JPEG, PNG or WebP picture.`
      : '';
    if (bad.length) problem.className = 'msg msg-bad';
    draw();
  };
  file.addEventListener('change', () => void add());

  const clear = () => {
    for (const p of list) URL.revokeObjectURL(p.url);
    list = [];
    draw();
  };
  return {
    parts: [
      h('div', { class: 'row' }, h('label', { for: id, class: 'button secondary' }, label), file),
      problem,
      thumbs,
    ],
    photos: () => list,
    set: (blobs) => {
      clear();
      list = blobs.map((blob) => ({ blob, url: URL.createObjectURL(blob) }));
      draw();
    },
    clear,
  };
}
