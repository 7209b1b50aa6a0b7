import type { ApiKeyRecord } from '../../domain/accounts/accounts';
import { SCOPES } from '../../domain/accounts/principal';
import type { DailySpend } from '../../domain/credits/daily-spend';
import type { getUsage } from '../../domain/credits/usage';
import type { getProfile } from '../../domain/accounts/profile';
import { PLANS } from '../../core/plans';
import { spendChart } from './chart';
import { html, type SafeHtml } from './html';
import { csrfField, dataTable, field, time } from './layout';

export type Usage = Awaited<ReturnType<typeof getUsage>>;
export type Profile = Awaited<ReturnType<typeof getProfile>>;

export function signInBody(values: { email?: string; next?: string } = {}): SafeHtml {
  return html`<form method="post" action="/app/sign-in" class="narrow">
      ${values.next ? html`<input type="hidden" name="next" value="${values.next}" />` : ''}
      ${field(
        'email',
        'E-mail',
        html`<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${values.email ?? ''}" />`,
      )}
      ${field('password', 'Password', html`<input id="password" name="password" type="password" autocomplete="current-password" required />`)}
      <button type="submit">Sign in</button>
    </form>
    <p>No account yet? <a href="/dashboard/sign-up">Sign up</a>. <a href="/docs">API reference</a>.</p>`;
}

export function signUpBody(values: { email?: string; display_name?: string } = {}): SafeHtml {
  return html`<form method="post" action="/dashboard/sign-up" class="narrow">
      ${field('display_name', 'Your name', html`<input id="display_name" name="display_name" autocomplete="name" required maxlength="100" value="${values.display_name ?? ''}" />`)}
      ${field(
        'email',
        'E-mail',
        html`<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${values.email ?? ''}" />`,
      )}
      ${field(
        'password',
        'Password',
        html`<input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minlength="12"
          aria-describedby="password-hint"
        />`,
        'At least 12 characters.',
      )}
      <button type="submit">Create account</button>
    </form>
    <p>Already have an account? <a href="/app/sign-in">Sign in</a>.</p>`;
}

export function signUpDoneBody(email: string, devOutbox: boolean): SafeHtml {
  return html`<p>We sent a mail to <strong>${email}</strong>: follow it to verify your address, then sign in.</p>
    ${devOutbox ? html`<p class="hint">Local development: mail is not sent; the link is in the <a href="/app/dev/outbox">development outbox</a>.</p>` : ''}
    <p><a href="/app/sign-in">Sign in</a></p>`;
}

export function verifiedBody(): SafeHtml {
  return html`<p>Your e-mail address is verified.</p>
    <p><a href="/app/sign-in">Sign in</a></p>`;
}

export function unverifiedBody(): SafeHtml {
  return html`<p>Verify your e-mail address first: open the link we sent you, then reload this page.</p>`;
}

export function usageBody(u: Usage, spend: DailySpend[]): SafeHtml {
  const plan = PLANS[u.plan];
  return html`<dl class="figures">
      <div>
        <dt>Credits remaining</dt>
        <dd>${u.credits_remaining}</dd>
      </div>
      <div>
        <dt>Reserved by running jobs</dt>
        <dd>${u.credits_reserved}</dd>
      </div>
      <div>
        <dt>Credits this period</dt>
        <dd>${u.credits_total}</dd>
      </div>
      <div>
        <dt>Prepaid credits</dt>
        <dd>${u.prepaid_credits}</dd>
      </div>
      <div>
        <dt>Period ends</dt>
        <dd>${time(u.period_end)}</dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd>${plan.name}</dd>
      </div>
    </dl>
    <h2>Credits spent per day</h2>
    ${spendChart(spend)}
    <p class="hint">
      A caption transcript costs 1 credit; AI transcription ${u.transcribe_credits_per_minute} credits per started minute (at least
      ${u.minimum_billable_seconds} s).
    </p>`;
}

export function keysBody(keys: ApiKeyRecord[], csrf: string, created?: ApiKeyRecord & { secret: string }): SafeHtml {
  return html`${created ? secretOnce('API key created', 'key-secret', created.secret, 'This is the only time the key is shown. Store it in your server’s secrets; it cannot be shown again.') : ''}
    <h2>Create a key</h2>
    <form method="post" action="/dashboard/keys">
      ${csrfField(csrf)}
      ${field('key-name', 'Name', html`<input id="key-name" name="name" required maxlength="100" placeholder="e.g. production server" />`)}
      <fieldset>
        <legend>Scopes</legend>
        ${SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}" ${s !== 'uploads:write' ? html` checked` : ''} /> ${s}</label>`)}
      </fieldset>
      <button type="submit">Create key</button>
    </form>
    <h2>Keys</h2>
    ${dataTable({
      caption: 'API keys, newest first',
      columns: ['Name', 'Key', 'Scopes', 'Created', 'Last used', 'State'],
      rows: keys,
      row: (k) =>
        html`<tr>
          <td>${k.name}</td>
          <td><code>${k.prefix}…</code></td>
          <td>${k.scopes.join(', ')}</td>
          <td>${time(k.created_at)}</td>
          <td>${k.last_used_at ? time(k.last_used_at) : 'never'}</td>
          <td>
            ${
              k.revoked_at
                ? html`revoked ${time(k.revoked_at)}`
                : html`<form
                    method="post"
                    action="/dashboard/keys/${k.id}/revoke"
                    data-confirm="Revoke the key ${k.name}? Programs using it stop working at once."
                  >
                    ${csrfField(csrf)}<button type="submit" class="danger" aria-label="Revoke ${k.name}">Revoke</button>
                  </form>`
            }
          </td>
        </tr>`,
      empty: html`<p>No keys yet.</p>`,
    })}`;
}

/** A secret shown once, with a copy button (dashboard.js); never stored for a second rendering. */
export function secretOnce(heading: string, id: string, secret: string, note: string): SafeHtml {
  return html`<section class="secret" aria-labelledby="${id}-h">
    <h2 id="${id}-h">${heading}</h2>
    <p>${note}</p>
    <p>
      <label for="${id}" class="sr-only">Secret</label><input id="${id}" class="mono" readonly value="${secret}" data-secret />
      <button type="button" data-copy="${id}">Copy</button> <span data-copied-for="${id}" role="status" class="hint"></span>
    </p>
  </section>`;
}

export function profileBody(p: Profile, csrf: string): SafeHtml {
  return html`<form method="post" action="/dashboard/profile" class="narrow">
      ${csrfField(csrf)}
      ${field('display_name', 'Display name', html`<input id="display_name" name="display_name" required maxlength="100" value="${p.display_name}" autocomplete="name" />`)}
      ${field(
        'retention_days',
        'Keep transcripts for (days)',
        html`<input
          id="retention_days"
          name="retention_days"
          type="number"
          inputmode="numeric"
          min="1"
          max="${p.max_retention_days}"
          required
          value="${p.retention_days}"
          aria-describedby="retention_days-hint"
        />`,
        `Your plan keeps transcripts for at most ${p.max_retention_days} days.`,
      )}
      <button type="submit">Save</button>
    </form>
    <dl class="facts">
      <div>
        <dt>E-mail</dt>
        <dd>${p.email}</dd>
      </div>
      <div>
        <dt>Workspace</dt>
        <dd>${p.workspace_name}</dd>
      </div>
      <div>
        <dt>Plan</dt>
        <dd>${PLANS[p.plan].name}</dd>
      </div>
    </dl>
    <h2>Delete the account</h2>
    <p><a href="/dashboard/account/delete">Delete this account and workspace…</a></p>`;
}

export function deleteAccountBody(csrf: string): SafeHtml {
  return html`<p>
      Deleting the account disables the workspace at once: every API key stops working, running jobs are not charged, and all data is purged
      after 30 days. This cannot be undone.
    </p>
    <form method="post" action="/dashboard/account/delete" class="narrow">
      ${csrfField(csrf)}
      ${field('confirm', 'Type DELETE to confirm', html`<input id="confirm" name="confirm" required autocomplete="off" pattern="DELETE" aria-describedby="confirm-hint" />`, 'In capital letters.')}
      <button type="submit" class="danger">Delete account</button>
    </form>`;
}

export function deletedBody(): SafeHtml {
  return html`<p>Your account is deleted: the workspace is disabled and its data will be purged after 30 days.</p>
    <p><a href="/dashboard/sign-up">Create a new account</a></p>`;
}
