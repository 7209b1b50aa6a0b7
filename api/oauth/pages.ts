// The browser pages of the OAuth server: the consent page where the signed-in
// workspace owner picks the scopes an agent gets, and the error page.

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const SCOPE_TEXT: Record<string, string> = {
  'jobs:read': 'Read jobs, batches and discoveries',
  'jobs:write': 'Submit jobs and discoveries (spends credits)',
  'transcripts:read': 'Read transcripts and exports',
  'uploads:write': 'Upload files',
};

const HEAD = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Transcript Service</title>` +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}' +
  'input[type=email],input[type=password]{width:100%;padding:.5rem}button{margin:1rem .5rem 0 0;padding:.5rem 1rem}code{word-break:break-all}</style></head><body>';

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
  const who = v.clientName ? `<strong>${esc(v.clientName)}</strong> (<code>${esc(v.clientId)}</code>)` : `<code>${esc(v.clientId)}</code>`;
  if (!v.signedIn) {
    // Signing in creates the same cookie session as /app/sign-in; the page then reloads and asks for consent.
    return `${HEAD('Authorise an agent')}<h1>Authorise an agent</h1><p>${who} asks to use your workspace. Sign in as the workspace owner to continue.</p>
<form id="f"><label>E-mail<input id="email" type="email" autocomplete="username" required></label>
<label>Password<input id="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form><p id="out" role="alert"></p>
<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/app/session', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: document.getElementById('email').value, password: document.getElementById('password').value }) });
  if (r.ok) { location.reload(); } else { document.getElementById('out').textContent = (await r.json()).error.message; }
});
</script></body></html>`;
  }
  if (!v.signedIn.isOwner) {
    return `${HEAD('Authorise an agent')}<h1>Authorise an agent</h1><p>Signed in as ${esc(v.signedIn.email)}, who is not the owner of this workspace. Only the owner can authorise an agent.</p></body></html>`;
  }
  const boxes = v.scopes
    .map(
      (s) =>
        `<label><input type="checkbox" name="scope" value="${esc(s)}"${v.checked.includes(s) ? ' checked' : ''}> <code>${esc(s)}</code> — ${esc(SCOPE_TEXT[s] ?? s)}</label>`,
    )
    .join('\n');
  return `${HEAD('Authorise an agent')}<h1>Authorise an agent</h1>
<p>${who} asks to act for your workspace (signed in as ${esc(v.signedIn.email)}). After you allow it, it is sent back to <code>${esc(v.redirectUri)}</code>.</p>
<form method="post" action="${esc(v.action)}"><input type="hidden" name="csrf" value="${esc(v.csrf)}">
<fieldset><legend>What it may do</legend>
${boxes}
</fieldset>
<p>Access tokens last 10 minutes and are renewed with a refresh token for up to 30 days between uses. Revoke the authorisation at any time (<code>DELETE /app/oauth/authorizations/{id}</code>).</p>
<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}

export function errorPage(code: string, description: string): string {
  return `${HEAD('Authorisation failed')}<h1>Authorisation failed</h1><p><code>${esc(code)}</code>: ${esc(description)}</p></body></html>`;
}
