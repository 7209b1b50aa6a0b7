import { html, type Interpolation, type SafeHtml } from './html';

/** Static assets: served from api/dashboard/static by the dashboard router. */
export const ASSET_BASE = '/dashboard/static';

export interface Shell {
  title: string;
  /** Signed-in pages: the navigation, the sign-out form and the CSRF token the scripts send. */
  session?: { csrf: string; email: string; current: NavKey };
  /** A short notice above the content (role=status) or an error (role=alert). */
  notice?: string | null;
  error?: string | null;
  body: Interpolation;
  /** Further scripts of this page, by file name under ASSET_BASE (after dashboard.js). */
  scripts?: string[];
}

export type NavKey = 'new' | 'usage' | 'keys' | 'jobs' | 'search' | 'webhooks' | 'billing' | 'profile' | 'none';

const NAV: [NavKey, string, string][] = [
  ['new', 'New transcript', '/dashboard/new'],
  ['usage', 'Usage', '/dashboard/usage'],
  ['jobs', 'Jobs', '/dashboard/jobs'],
  ['search', 'Search', '/dashboard/search'],
  ['keys', 'API keys', '/dashboard/keys'],
  ['webhooks', 'Webhooks', '/dashboard/webhooks'],
  ['billing', 'Billing', '/dashboard/billing'],
  ['profile', 'Profile', '/dashboard/profile'],
];

/** A form field: its label, the control, and a hint the control can name with aria-describedby (`<id>-hint`). */
export function field(id: string, label: string, input: SafeHtml, hint?: string): SafeHtml {
  return html`<div class="field">
    <label for="${id}">${label}</label>${input}${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
  </div>`;
}

/** Every write form carries the session's CSRF token (the same token the JSON API takes as X-CSRF-Token). */
export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}" />`;
}

/**
 * A list as a table that scrolls inside its own box on a phone, with a caption
 * for screen readers and column headers; `empty` instead when there are no rows.
 */
export function dataTable<T>(t: {
  caption: string;
  columns: Interpolation[];
  rows: readonly T[];
  row: (r: T) => SafeHtml;
  empty: SafeHtml;
}): SafeHtml {
  if (t.rows.length === 0) return t.empty;
  return html`<div class="scroll">
    <table>
      <caption class="sr-only">
        ${t.caption}
      </caption>
      <thead>
        <tr>
          ${t.columns.map((c) => html`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${t.rows.map(t.row)}
      </tbody>
    </table>
  </div>`;
}

export function page(s: Shell): string {
  const nav = s.session
    ? html`<nav aria-label="Dashboard">
        <ul>
          ${NAV.map(([key, label, href]) => html`<li><a href="${href}" ${key === s.session!.current ? html` aria-current="page"` : ''}>${label}</a></li>`)}
        </ul>
        <form method="post" action="/dashboard/sign-out" class="signout">
          ${csrfField(s.session.csrf)}<span class="who">${s.session.email}</span> <button type="submit" class="link">Sign out</button>
        </form>
      </nav>`
    : '';
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${s.title} · Transcript Service</title>
        <link rel="stylesheet" href="${ASSET_BASE}/dashboard.css" />
        ${s.session ? html`<meta name="csrf-token" content="${s.session.csrf}" />` : ''}
        <script src="${ASSET_BASE}/dashboard.js" defer></script>
        ${(s.scripts ?? []).map((name) => html`<script src="${ASSET_BASE}/${name}" defer></script>`)}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <p class="brand"><a href="${s.session ? '/dashboard/usage' : '/app/sign-in'}">Transcript Service</a></p>
          ${nav}
        </header>
        <main id="main" tabindex="-1">
          <h1>${s.title}</h1>
          ${s.notice ? html`<p class="notice" role="status">${s.notice}</p>` : ''}
          ${s.error ? html`<p class="error" role="alert">${s.error}</p>` : ''} ${s.body}
        </main>
      </body>
    </html>`.text;
}

export function formatDate(iso: string | Date | null | undefined): string {
  if (!iso) return '—';
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
}

/** A <time> element a person reads and a machine parses. */
export function time(iso: string | Date | null | undefined): SafeHtml {
  if (!iso) return html`—`;
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return html`<time datetime="${d.toISOString()}">${formatDate(d)}</time>`;
}
