/** Enforcement on an engine of the alert engine's test harness (`test/alerts/support.ts`), as main.ts builds it. */
import { type Enforcement, enginePort, openEnforcement } from '../../gateway/src/enforcement/index.ts';
import type { Harness } from '../alerts/support.ts';

export function enforcementOf(h: Pick<Harness, 'engine' | 'db'>): Enforcement {
  return openEnforcement(h.db, enginePort(h.engine));
}
