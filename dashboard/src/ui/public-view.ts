/**
 * The public view (`http.publicView`): when the gateway offers it, a visitor who is not signed in sees
 * the overview and the storms as a neighbour may (the sites, their duties' states, their devices, the
 * storms and their charts: gateway/src/api/publicView.ts), under a line saying so with a link to sign in;
 * nothing else is asked for. Whether it is on, and the gateway's time zone, come from GET /api/health,
 * which answers anyone.
 */
import { get } from '../api.js';
import { notSignedIn } from '../session.js';
import { state } from '../state.js';
import { byId } from './dom.js';

/** What the gateway tells before anyone signs in. */
const gateway = { publicView: false };

/** The views the public view shows; any other shows the overview instead. */
export const PUBLIC_VIEWS: ReadonlySet<string> = new Set(['overview', 'storms', 'signin']);

/**
 * Reads whether the gateway offers the public view, and its time zone (`state.gatewayZone`). A gateway
 * that cannot be asked offers none: the page stays as private as it was.
 */
export async function learnGateway(): Promise<void> {
  try {
    const facts = await get('GET /api/health', { quiet: true });
    gateway.publicView = facts.publicView;
    state.gatewayZone = facts.timezone;
  } catch (e) {
    console.warn('reading /api/health failed', e);
  }
}

/** Whether the page shows the public view now: the gateway offers it and nobody is signed in. */
export const inPublicView = () => gateway.publicView && notSignedIn();

/**
 * Shows what marks the public view (`view`: the view shown): the line over the page with its link to
 * sign in, the sign-in page's link back to it, and only the menus it has.
 */
export function markPublicView(view: string) {
  const on = inPublicView();
  document.body.dataset.public = on ? 'true' : 'false';
  byId('public-note').hidden = !on || view === 'signin';
  byId('signin-public').hidden = !on;
}
