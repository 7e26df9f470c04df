/** The edit dialog the admin pages share, and the dialog that shows a new secret once. */
import { byId, h, replace } from './dom.js';

export type Child = import('./dom.js').Child;

/**
 * Opens the shared edit dialog with a title and content (usually a form).
 */
export function openEditor(title: string, ...content: Child[]) {
  const dialog = byId('edit-dialog') as HTMLDialogElement;
  replace(byId('edit-title'), title);
  replace(byId('edit-body'), ...content);
  if (!dialog.open) dialog.showModal();
  (dialog.querySelector('input, select, textarea') as HTMLElement | null)?.focus();
}

export function closeEditor() {
  (byId('edit-dialog') as HTMLDialogElement).close();
}

/**
 * Shows a secret the gateway will never show again, with a copy button and a warning.
 * @param values label and value, e.g. [['Username', u], ['Password', p]]
 */
export function showSecret(title: string, values: Array<[string, string]>, note?: string) {
  const dialog = byId('secret-dialog') as HTMLDialogElement;
  replace(byId('secret-title'), title);
  replace(
    byId('secret-body'),
    h(
      'p',
      { class: 'msg msg-warn', role: 'alert' },
      'Shown once: copy it now and keep it somewhere safe. The gateway keeps only a hash and cannot show it again.',
    ),
    note ? h('p', { class: 'small' }, note) : null,
    values.map(([label, value], i) => {
      const out = h('code', { class: 'secret', id: `secret-value-${i}`, 'data-secret': label }, value);
      const status = h('span', { class: 'small muted', role: 'status' });
      return h(
        'div',
        { class: 'secret-row' },
        h('span', { class: 'secret-label' }, label),
        out,
        h(
          'button',
          {
            type: 'button',
            class: 'secondary copy',
            'aria-label': `Copy ${label.toLowerCase()}`,
            onclick: () => {
              void copyText(value, out).then((how) => {
                status.textContent = how === 'copied' ? 'Copied.' : 'Selected: press Ctrl+C to copy.';
              });
            },
          },
          'Copy',
        ),
        status,
      );
    }),
  );
  if (!dialog.open) dialog.showModal();
}

/**
 * Copies text to the clipboard; where the browser does not let the page (no clipboard, no permission),
 * selects the element showing it instead, for the person to copy.
 */
export async function copyText(text: string, shownIn: Element): Promise<'copied' | 'selected'> {
  try {
    if (!navigator.clipboard) throw new Error('no clipboard in this browser');
    await navigator.clipboard.writeText(text);
    return 'copied';
  } catch (e) {
    console.warn('copying to the clipboard was refused: the text is selected instead', e);
    selectText(shownIn);
    return 'selected';
  }
}

function selectText(el: Element) {
  if (el instanceof HTMLInputElement) {
    el.select();
    return;
  }
  const range = document.createRange();
  range.selectNodeContents(el);
  const sel = getSelection();
  sel?.removeAllRanges();
  sel?.addRange(range);
}

export function bindDialogs() {
  // Once closed, the secret leaves the page: it is not to be found again later. The page's own
  // buttons clear it at once; the dialog's `close` event (queued, e.g. after Escape) clears it too.
  const closeSecret = () => {
    replace(byId('secret-body'));
    (byId('secret-dialog') as HTMLDialogElement).close();
  };
  const closers: Array<[string, string, () => void]> = [
    ['edit-dialog', 'edit-close', () => (byId('edit-dialog') as HTMLDialogElement).close()],
    ['secret-dialog', 'secret-close', closeSecret],
  ];
  for (const [dialogId, closeId, close] of closers) {
    const dialog = byId(dialogId) as HTMLDialogElement;
    byId(closeId).addEventListener('click', close);
    dialog.addEventListener('click', (e) => {
      if (e.target === dialog) close();
    });
  }
  byId('secret-dialog').addEventListener('close', () => replace(byId('secret-body')));
  byId('secret-done').addEventListener('click', closeSecret);
}
