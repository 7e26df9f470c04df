/** The page's header and its edges: the phone's menu, and the notes that come and go (toasts). */
import { byId, h } from './dom.js';

/** The phone's menu: a button folds the sections away and out; choosing one folds them away again. */
export function bindMenu() {
  const button = byId('menu-toggle');
  const top = button.closest('header') as HTMLElement;
  const set = (open: boolean) => {
    button.setAttribute('aria-expanded', String(open));
    top.classList.toggle('menu-open', open);
  };
  button.addEventListener('click', () => set(button.getAttribute('aria-expanded') !== 'true'));
  byId('nav-tabs').addEventListener('click', (e) => {
    if ((e.target as Element).closest('a')) set(false);
  });
  top.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && top.classList.contains('menu-open')) {
      set(false);
      button.focus();
    }
  });
}

/** A note for a few seconds in the corner (a new alert, an inspection recorded); four at most. */
export function toast(text: string) {
  const box = byId('toasts');
  const t = h('div', { class: 'toast', role: 'status' }, text);
  box.appendChild(t);
  setTimeout(() => t.remove(), 8000);
  while (box.children.length > 4) box.firstElementChild?.remove();
}
