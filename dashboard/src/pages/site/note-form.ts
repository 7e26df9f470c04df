/**
 * A small folded form of one text box and a button, for the steps of enforcement (appeal, correction,
 * approval, stop work, lift): what the gateway answers, or why it refused, in words under the button.
 */
import { describeError } from '../../api.js';
import { type Child, h } from '../../ui/dom.js';

export type NoteForm = {
  /** The form's id; its text box is `${id}-text`, its answer `${id}-result`. */
  id: string;
  summary: string;
  label: string;
  submitLabel: string;
  /** Whether the text may be left empty. */
  optional?: boolean;
  /** What the person is told when they send it empty (a required text). */
  emptyWords?: string;
  hint?: string;
  /** More fields, above the text box. */
  extra?: Child;
  open?: boolean;
  /** Sends it; its answer (words) is shown. A refusal thrown is told with `describeError`, or `refused`. */
  send: (text: string) => Promise<string>;
  /** What to show for a refusal instead of only its words (e.g. an offer to override). */
  refused?: (err: unknown, text: string, result: HTMLElement) => boolean;
};

/** Shows words in a form's answer line. */
export function tell(result: HTMLElement, text: string, kind: 'ok' | 'bad' | 'warn') {
  result.replaceChildren(text);
  result.className = `msg msg-${kind}`;
}

export function noteForm(o: NoteForm): HTMLElement {
  const text = h('textarea', {
    id: `${o.id}-text`,
    rows: 3,
    maxlength: 4000,
    ...(o.optional ? {} : { required: true }),
  }) as HTMLTextAreaElement;
  const result = h('p', { id: `${o.id}-result`, class: 'msg', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, o.submitLabel) as HTMLButtonElement;
  const submit = async (e: Event) => {
    e.preventDefault();
    const value = text.value.trim();
    if (!value && !o.optional) {
      tell(result, o.emptyWords ?? `${o.label}: please write it first.`, 'bad');
      text.focus();
      return;
    }
    button.disabled = true;
    try {
      tell(result, await o.send(value), 'ok');
      text.value = '';
    } catch (err) {
      if (!o.refused?.(err, value, result)) tell(result, describeError(err), 'bad');
    } finally {
      button.disabled = false;
    }
  };
  return h(
    'details',
    { class: 'note-form', open: o.open ?? false },
    h('summary', null, o.summary),
    h(
      'form',
      { id: o.id, class: 'form', novalidate: true, onsubmit: (e: Event) => void submit(e) },
      o.extra ?? null,
      h('label', { for: text.id }, o.label),
      o.hint ? h('p', { class: 'small muted' }, o.hint) : null,
      text,
      button,
      result,
    ),
  );
}
