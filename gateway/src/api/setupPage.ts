/**
 * The pages of the first admin's setup link, rendered by the server as plain HTML: the form, the form
 * again with what was wrong, the page of a link that no longer works, and the page the new admin lands on,
 * signed in, which hands them to the dashboard. Each has the dashboard's style sheet and icon; the words
 * are for whoever opens the link, not for a program.
 */

import { SETUP_HOURS } from '../people/setup.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>
<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/style.css"></head>
<body><main><h1>${esc(title)}</h1>
${body}</main></body></html>`;
}

/** What the form had, to fill it in again after a problem (never the password). */
export interface SetupFormValues {
  name?: string;
  email?: string;
}

/** The form that creates the first admin; `problem` says what was wrong with the last try. */
export function setupFormPage(code: string, problem?: string, values: SetupFormValues = {}): string {
  const note = problem ? `<p class="msg msg-bad" role="alert">${esc(problem)}</p>\n` : '';
  return page(
    'Create the first administrator',
    `${note}<p>Nobody can sign in to this gateway yet. The account you create here can manage sites, devices
and people; you are signed in as soon as it is made.</p>
<form class="narrow" method="post" action="/api/setup"><input type="hidden" name="code" value="${esc(code)}">
<label class="field">Name <input name="name" autocomplete="name" required value="${esc(values.name ?? '')}"></label>
<label class="field">E-mail <input name="email" type="email" autocomplete="email" required value="${esc(values.email ?? '')}"></label>
<label class="field">Password (10 characters or more) <input name="password" type="password" autocomplete="new-password" minlength="10" required></label>
<button type="submit">Create and sign in</button></form>`,
  );
}

/** The page of a setup link that does not work (used, expired, or not this gateway's). */
export function setupUsedPage(): string {
  return page(
    'This setup link no longer works',
    `<p>The link to create the first administrator works once, within ${SETUP_HOURS} hours of the start that printed it.
It has been used, it has expired, or it was copied wrong.</p>
<p>If an administrator exists, <a href="/#/signin">sign in</a>. If nobody can sign in yet, start the
gateway again: it prints a new link at the end of its start-up output.</p>`,
  );
}

/**
 * Where the new admin, signed in, is sent: the dashboard's welcome route, which marks this browser as
 * signed in (as its own sign-in form does) and opens the overview.
 */
export const SIGNED_IN_PATH = '/#/welcome';
