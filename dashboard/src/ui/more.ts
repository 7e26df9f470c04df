/**
 * A list shown a page at a time, as the gateway answers its lists (newest first, the answer's `Link`
 * naming the next page): the rows shown, the path of the next page, and a "Show more …" button for below
 * the list, hidden when nothing follows. The button reads the next page and adds its rows (one shown
 * already is not repeated); while it reads it is disabled, and usable again when the reading fails. The
 * Alerts and Quarantine pages use it.
 */
import { type Answer, getPageBody, type PagedRoute } from '../api.js';
import { h } from './dom.js';

export class MoreList<K extends PagedRoute, T> {
  /** The rows shown, in the order the gateway gave them. */
  rows: T[] = [];
  /** The path of the next page, while older rows follow. */
  next: string | undefined;
  /** "Show more …": the page places it below the list. */
  readonly button: HTMLButtonElement;

  constructor(
    private readonly o: {
      /** What the rows are, in the plural, as people say it: "alerts", "readings". */
      noun: string;
      /** A row's identity (its id), so a row is shown once. */
      key: (row: T) => string | number;
      /** The list's route: its next pages are of it. */
      route: K;
      /** The rows of a page's answer. */
      items: (body: Answer<K>) => T[];
      /** Draws the rows and says what is shown, once a page's rows were added. */
      shown: () => void;
      /** Says why the next page could not be read. */
      failed: (e: unknown) => void;
    },
  ) {
    this.button = h(
      'button',
      { type: 'button', class: 'secondary', hidden: true, onclick: () => void this.more() },
      `Show more ${o.noun}`,
    ) as HTMLButtonElement;
  }

  /** The first page: its rows, and the path of the next page when more follow. */
  start(rows: T[], next: string | undefined) {
    this.rows = rows;
    this.next = next;
    this.button.hidden = next === undefined;
    this.button.disabled = false;
  }

  /** While older rows follow: "Older alerts are not shown yet: “Show more alerts” below."; else "". */
  get older() {
    return this.next ? `Older ${this.o.noun} are not shown yet: “Show more ${this.o.noun}” below.` : '';
  }

  /** Reads the next page and adds its rows not shown yet. */
  async more() {
    if (!this.next || this.button.disabled) return;
    this.button.disabled = true;
    try {
      const { body, next } = await getPageBody(this.o.route, { next: this.next });
      const page = this.o.items(body);
      const shown = new Set(this.rows.map(this.o.key));
      this.start([...this.rows, ...page.filter((r) => !shown.has(this.o.key(r)))], next);
      this.o.shown();
    } catch (e) {
      this.button.disabled = false;
      this.o.failed(e);
    }
  }
}
