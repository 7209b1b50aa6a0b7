import type { JobView } from '../../domain/jobs/view';
import { isFinal } from '../../domain/jobs/view';
import { JOB_STATUSES, PLATFORMS } from '../../domain/schemas/jobs';
import { html, type SafeHtml } from './html';
import { csrfField, dataTable, field, time } from './layout';

export interface JobFilters {
  status?: string;
  platform?: string;
  /** Page size when not the default 20 (kept across pages). */
  limit?: string;
}

const statusBadge = (status: string) => html`<span class="badge s-${status}">${status.replace('_', ' ')}</span>`;
const jobTitle = (j: JobView) => j.source.title ?? j.source.canonical_url ?? j.source.media_id ?? j.source.upload_id ?? j.id;

export function jobsBody(jobs: JobView[], filters: JobFilters, nextCursor: string | null, firstPage: boolean): SafeHtml {
  const qs = (extra: Record<string, string>) =>
    new URLSearchParams(
      Object.entries({ ...filters, ...extra }).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
    ).toString();
  return html`<form method="get" action="/dashboard/jobs" class="inline" aria-label="Filter jobs">
      ${field(
        'status',
        'Status',
        html`<select id="status" name="status">
          <option value="">Any</option>
          ${JOB_STATUSES.map(
            (s) => html`<option value="${s}" ${filters.status === s ? html` selected` : ''}>${s.replace('_', ' ')}</option>`,
          )}
        </select>`,
      )}
      ${field(
        'platform',
        'Platform',
        html`<select id="platform" name="platform">
          <option value="">Any</option>
          ${PLATFORMS.map((p) => html`<option value="${p}" ${filters.platform === p ? html` selected` : ''}>${p}</option>`)}
        </select>`,
      )}
      ${filters.limit ? html`<input type="hidden" name="limit" value="${filters.limit}" />` : ''}<button type="submit">Filter</button>
    </form>
    ${dataTable({
      caption: 'Jobs, newest first',
      columns: ['Source', 'Platform', 'Mode', 'Status', 'Created'],
      rows: jobs,
      row: (j) =>
        html`<tr>
          <td><a href="/dashboard/jobs/${j.id}">${jobTitle(j)}</a></td>
          <td>${j.source.platform}</td>
          <td>${j.options.mode}</td>
          <td>${statusBadge(j.status)}</td>
          <td>${time(j.created_at)}</td>
        </tr>`,
      empty: html`<p>
        No jobs${filters.status || filters.platform ? ' match these filters' : ' yet'}. Submit one with <code>POST /v1/jobs</code> and an
        API key.
      </p>`,
    })}
    <nav aria-label="Pages" class="pager">
      ${firstPage ? '' : html`<a href="/dashboard/jobs?${qs({})}">First page</a>`}
      ${nextCursor ? html`<a href="/dashboard/jobs?${qs({ cursor: nextCursor })}" rel="next">Next page</a>` : ''}
    </nav>`;
}

/** "312 of 7140 s transcribed" (the same words the browser script writes as the job goes on). */
export function progressText(p: JobView['progress']): string {
  return p ? `${Math.round(p.transcribed_seconds)} of ${Math.round(p.total_seconds)} s transcribed.` : '';
}

export function jobBody(j: JobView, csrf: string, retryKey: string): SafeHtml {
  const final = isFinal(j.status);
  return html`<dl class="facts" data-job="${j.id}" data-final="${final ? 'true' : 'false'}">
      <div>
        <dt>Status</dt>
        <dd><span data-job-status aria-live="polite">${statusBadge(j.status)}</span></dd>
      </div>
      <div>
        <dt>Stage</dt>
        <dd data-job-stage aria-live="polite">${j.stage ?? '—'}</dd>
      </div>
      <div>
        <dt>Source</dt>
        <dd>
          ${j.source.canonical_url ? html`<a href="${j.source.canonical_url}" rel="noopener noreferrer">${jobTitle(j)}</a>` : jobTitle(j)}
        </dd>
      </div>
      <div>
        <dt>Platform</dt>
        <dd>${j.source.platform}</dd>
      </div>
      <div>
        <dt>Mode</dt>
        <dd>${j.options.mode}</dd>
      </div>
      <div>
        <dt>Credits</dt>
        <dd>${j.billing.credits_charged} charged, ${j.billing.credits_reserved} reserved${j.billing.kind ? ` (${j.billing.kind})` : ''}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>${time(j.created_at)}</dd>
      </div>
      <div>
        <dt>Updated</dt>
        <dd data-job-updated>${time(j.updated_at)}</dd>
      </div>
      ${
        j.retry
          ? html`<div>
              <dt>Automatic retry</dt>
              <dd>attempt ${j.retry.attempt} after ${j.retry.last_error.code}</dd>
            </div>`
          : ''
      }
      ${
        j.error
          ? html`<div>
              <dt>Error</dt>
              <dd><code>${j.error.code}</code> ${j.error.message}</dd>
            </div>`
          : ''
      }
    </dl>
    ${final ? '' : html`<p class="hint" data-live-note>This page follows the job while it runs.</p>`}
    ${
      final || j.options.mode === 'captions_only'
        ? ''
        : html`<section aria-labelledby="so-far">
            <h2 id="so-far">Transcript so far</h2>
            <p class="hint">
              The words appear as each part of the recording is transcribed, earliest first; speakers are named in the transcript once the
              job ends. <span data-job-progress aria-live="polite">${progressText(j.progress)}</span>
            </p>
            <ol class="segments" data-job-segments aria-label="Transcript so far" aria-live="polite"></ol>
          </section>`
    }
    <div class="actions">
      ${j.result_id && j.status === 'succeeded' ? html`<a class="button" href="/dashboard/transcripts/${j.result_id}">Open the transcript</a>` : ''}
      ${final ? '' : html`<form method="post" action="/dashboard/jobs/${j.id}/cancel">${csrfField(csrf)}<button type="submit" class="danger">Cancel job</button></form>`}
      ${j.status === 'failed' && j.error?.retryable ? html`<form method="post" action="/dashboard/jobs/${j.id}/retry">${csrfField(csrf)}<input type="hidden" name="idempotency_key" value="${retryKey}" /><button type="submit">Retry job</button></form>` : ''}
    </div>
    <p><a href="/dashboard/jobs">All jobs</a></p>`;
}
