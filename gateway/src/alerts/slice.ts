/**
 * A slice: readings evaluated one batch after another into one unit of work that is not committed yet.
 * The rules stage commits it on a short interval, when it holds many readings, or at once when an alert
 * opens or closes (`urgent`), so the states, storm records and alert updates of many readings are one
 * transaction, with the rules cursor, instead of one each. The readings themselves are stored (and
 * acknowledged) before they are evaluated; a slice lost in a crash is evaluated again from the cursor.
 */
import type { RuleWork } from './rules.ts';
import type { Unit } from './unit.ts';

export class Slice {
  readonly work: RuleWork[] = [];
  readings = 0;
  /** An effect that opens or closes an alert: the slice should be committed now. */
  urgent = false;
  /** The id of its last reading, when the caller gave it. */
  upTo: number | undefined;

  constructor(readonly u: Unit) {}

  add(work: readonly RuleWork[], readings: number, upTo: number | undefined): void {
    for (const w of work) {
      this.work.push(w);
      if (!this.urgent) this.urgent = w.effects.some((e) => e.type === 'open' || e.type === 'resolve');
    }
    this.readings += readings;
    if (upTo !== undefined) this.upTo = upTo;
  }
}
