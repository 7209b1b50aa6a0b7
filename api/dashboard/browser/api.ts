// What the dashboard's scripts share to call the public API with the session (the cookie and the page's CSRF token,
// as an integration does with a key) and to show its refusals the one way: message, field, code and request id.

/** The error envelope of the API (or one this page makes up in its shape). */
export interface Refusal {
  error?: { code?: string; message?: string; details?: { detail?: string } };
  request_id?: string;
  message?: string;
}
export const refused = (message: string): Refusal => ({ error: { message } });

/** A JSON call of the public API with the session; rejects with the error envelope. */
export async function api<T>(csrf: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { accept: 'application/json', 'x-csrf-token': csrf, ...headers };
  if (body !== undefined) h['content-type'] = 'application/json';
  const r = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = refused(`The service answered HTTP ${r.status}.`);
  }
  if (!r.ok) throw (data ?? refused(`The service answered HTTP ${r.status}.`)) as Refusal;
  return { status: r.status, body: data as T };
}

/** Shows a refusal in an alert region: the message and the field it names, then its code and request id. */
export function showRefusal(box: HTMLElement, err: Refusal | null): void {
  box.textContent = '';
  if (!err) return;
  const p = document.createElement('p');
  p.className = 'error';
  const e = err.error ?? {};
  p.textContent = e.message || err.message || 'That did not work.';
  if (e.details?.detail) p.textContent += ` (${e.details.detail})`;
  box.appendChild(p);
  if (e.code || err.request_id) {
    const q = document.createElement('p');
    q.className = 'hint';
    q.textContent = (e.code ? `Code ${e.code}` : '') + (err.request_id ? ` · request id ${err.request_id}` : '');
    box.appendChild(q);
  }
  box.focus();
}
