// A minimal sign-in page: the browser session is created by POST /app/session;
// the page keeps the CSRF token in sessionStorage for later writes.
export function signInPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · Transcript Service</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem}button{margin-top:1rem;padding:.5rem 1rem}#out{margin-top:1rem;white-space:pre-wrap}</style>
</head><body>
<h1>Sign in</h1>
<form id="f"><label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<div id="out"></div>
<p><a href="/docs">API reference</a></p>
<script>
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const r = await fetch('/app/session', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: document.getElementById('email').value, password: document.getElementById('password').value }) });
  const body = await r.json();
  if (r.ok) { sessionStorage.setItem('csrf', body.csrf_token); document.getElementById('out').textContent = 'Signed in as ' + body.user.email + '.'; }
  else { document.getElementById('out').textContent = body.error.message; }
});
</script></body></html>`;
}
