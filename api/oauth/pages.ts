// The browser pages of the OAuth server: the consent page where the signed-in
// workspace owner picks the scopes an agent gets, and the error page. They are
// dashboard pages (api/dashboard/layout.ts): the dashboard's stylesheet and
// script from this origin, no inline code, sent with the dashboard's headers
// (CSP with frame-ancestors 'none', X-Frame-Options DENY, nosniff), so "Allow"
// cannot be clickjacked from a frame.

import { html } from '../dashboard/html';
import { field, page } from '../dashboard/layout';

const SCOPE_TEXT: Record<string, string> = {
  'jobs:read': 'Read jobs, batches and discoveries',
  'jobs:write': 'Submit jobs and discoveries (spends credits)',
  'transcripts:read': 'Read transcripts and exports',
  'uploads:write': 'Upload files',
};

export interface ConsentView {
  action: string;
  clientId: string;
  clientName: string | null;
  redirectUri: string;
  scopes: readonly string[];
  checked: readonly string[];
  signedIn: { email: string; isOwner: boolean } | null;
  csrf: string;
}

export function consentPage(v: ConsentView): string {
  const who = v.clientName ? html`<strong>${v.clientName}</strong> (<code>${v.clientId}</code>)` : html`<code>${v.clientId}</code>`;
  const title = 'Authorise an agent';
  if (!v.signedIn) {
    // The dashboard's sign-in form brings the owner back here (its `next` field), where the consent is asked.
    return page({
      title,
      body: html`<p>${who} asks to use your workspace. Sign in as the workspace owner to continue.</p>
        <form method="post" action="/app/sign-in" class="narrow">
          <input type="hidden" name="next" value="${v.action}" />
          ${field('email', 'E-mail', html`<input id="email" name="email" type="email" autocomplete="username" required />`)}
          ${field('password', 'Password', html`<input id="password" name="password" type="password" autocomplete="current-password" required />`)}
          <button type="submit">Sign in</button>
        </form>`,
    });
  }
  if (!v.signedIn.isOwner) {
    return page({
      title,
      body: html`<p>Signed in as ${v.signedIn.email}, who is not the owner of this workspace. Only the owner can authorise an agent.</p>`,
    });
  }
  const boxes = v.scopes.map(
    (s) =>
      html`<label
        ><input type="checkbox" name="scope" value="${s}" ${v.checked.includes(s) ? html` checked` : ''} /> <code>${s}</code> —
        ${SCOPE_TEXT[s] ?? s}</label
      >`,
  );
  return page({
    title,
    body: html`<p>
        ${who} asks to act for your workspace (signed in as ${v.signedIn.email}). After you allow it, it is sent back to
        <code>${v.redirectUri}</code>.
      </p>
      <form method="post" action="${v.action}">
        <input type="hidden" name="csrf" value="${v.csrf}" />
        <fieldset>
          <legend>What it may do</legend>
          ${boxes}
        </fieldset>
        <p>
          Access tokens last 10 minutes and are renewed with a refresh token for up to 30 days between uses. Revoke the authorisation at any
          time (<code>DELETE /app/oauth/authorizations/{id}</code>).
        </p>
        <button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button>
      </form>`,
  });
}

export function errorPage(code: string, description: string): string {
  return page({ title: 'Authorisation failed', body: html`<p><code>${code}</code>: ${description}</p>` });
}
