import type { JobView } from '../../domain/jobs/view';
import { isFinal } from '../../domain/jobs/view';
import { JOB_STATUSES, PLATFORMS } from '../../domain/schemas/jobs';
import type { TranscriptView } from '../../domain/transcripts/read';
import { EXPORT_FORMATS } from '../../domain/transcripts/export';
import type { listDeliveries, listWebhookEndpoints } from '../../domain/webhooks/endpoints';
import { html, type SafeHtml } from './html';
import { csrfField, dataTable, field, time } from './layout';
import { secretOnce } from './views-account';

type Endpoint = Awaited<ReturnType<typeof listWebhookEndpoints>>[number];
type Delivery = Awaited<ReturnType<typeof listDeliveries>>[number];

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
    <div class="actions">
      ${j.result_id && j.status === 'succeeded' ? html`<a class="button" href="/dashboard/transcripts/${j.result_id}">Open the transcript</a>` : ''}
      ${final ? '' : html`<form method="post" action="/dashboard/jobs/${j.id}/cancel">${csrfField(csrf)}<button type="submit" class="danger">Cancel job</button></form>`}
      ${j.status === 'failed' && j.error?.retryable ? html`<form method="post" action="/dashboard/jobs/${j.id}/retry">${csrfField(csrf)}<input type="hidden" name="idempotency_key" value="${retryKey}" /><button type="submit">Retry job</button></form>` : ''}
    </div>
    <p><a href="/dashboard/jobs">All jobs</a></p>`;
}

function clock(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${h ? `${h}:` : ''}${pad(m)}:${pad(s)}`;
}

// One line of markup per word, so the text between words is exactly one space.
// prettier-ignore
const wordSpan = (w: { start: number; end: number; text: string; confidence: number }) =>
  html`<span class="w c${band(w.confidence)}" data-start="${w.start}" data-end="${w.end}" title="confidence ${w.confidence.toFixed(2)}">${w.text}</span>`;

/** Confidence bands for shading; the legend names them, so colour is never the only carrier. */
function band(confidence: number): 0 | 1 | 2 | 3 {
  return confidence < 0.5 ? 0 : confidence < 0.7 ? 1 : confidence < 0.9 ? 2 : 3;
}

/**
 * The transcript page. With `media` (an upload's file, still stored) a player sits above the text: the word
 * being said is highlighted while it plays, and a click on a word or a time seeks to it (dashboard.js; the
 * page reads the same without script). Speakers, where labelled, name their segments.
 */
export function transcriptBody(t: TranscriptView, csrf: string, media: { contentType: string } | null = null): SafeHtml {
  const words = t.words ?? [];
  let wi = 0;
  const segments = t.segments.map((s) => {
    const mine: typeof words = [];
    // Words belong to the segment their start falls in (both are sorted by time).
    while (wi < words.length && words[wi]!.start < s.end + 1e-6) mine.push(words[wi++]!);
    const text = mine.length > 0 ? html`${mine.map((w, i) => html`${i ? ' ' : ''}${wordSpan(w)}`)}` : html`${s.text}`;
    return html`<li data-start="${s.start}">
      <a class="t" href="#t${Math.floor(s.start)}" id="t${Math.floor(s.start)}"
        ><time datetime="PT${s.start.toFixed(3)}S">${clock(s.start)}</time>–<time datetime="PT${s.end.toFixed(3)}S"
          >${clock(s.end)}</time
        ></a
      >
      ${s.speaker ? html`<b class="spk" title="speaker ${s.speaker}">${s.speaker}</b>` : ''}
      ${s.language && s.language !== t.language ? html`<span class="lang" lang="${s.language}">${s.language}</span>` : ''}
      ${
        t.alignment && s.match !== null && s.match < t.alignment.match_threshold
          ? html`<span class="nomatch" title="match ${s.match}">not heard</span>`
          : ''
      }
      <span class="seg" ${s.language ? html` lang="${s.language}"` : ''}>${text}</span>
    </li>`;
  });
  const check = t.caption_language_check;
  return html`<dl class="facts">
      <div>
        <dt>Source</dt>
        <dd>
          ${t.source.canonical_url ? html`<a href="${t.source.canonical_url}" rel="noopener noreferrer">${t.source.title ?? t.source.canonical_url}</a>` : (t.source.title ?? t.source.media_id ?? '—')}
        </dd>
      </div>
      <div>
        <dt>Language</dt>
        <dd>${t.language ?? '—'}</dd>
      </div>
      <div>
        <dt>Origin</dt>
        <dd>${t.source_origin.replace('_', ' ')}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>${t.duration_seconds !== null ? clock(t.duration_seconds) : '—'}</dd>
      </div>
      <div>
        <dt>Kept until</dt>
        <dd>${time(t.expires_at)}</dd>
      </div>
      ${
        t.recognition
          ? html`<div>
              <dt>Model</dt>
              <dd>${t.recognition.model} (${t.recognition.quality_status.replace(/_/g, ' ')}, ${t.recognition.profile} profile)</dd>
            </div>`
          : ''
      }
      ${
        t.languages.length > 1
          ? html`<div>
              <dt>Languages</dt>
              <dd>${t.languages.map((l, i) => html`${i ? ', ' : ''}${l.language} ${clock(l.seconds)}`)}</dd>
            </div>`
          : ''
      }
      ${
        t.speakers
          ? html`<div>
              <dt>Speakers</dt>
              <dd>
                ${
                  t.speakers.length === 0
                    ? 'none found'
                    : t.speakers.map((p, i) => html`${i ? '; ' : ''}<b class="spk">${p.id}</b> ${p.words} words, ${clock(p.seconds)}`)
                }
              </dd>
            </div>`
          : ''
      }
      ${
        t.alignment
          ? html`<div>
              <dt>Word timing</dt>
              <dd>
                ${t.alignment.method === 'word_timing' ? 'captions aligned to the audio' : 'your text aligned to the audio'} by
                ${t.alignment.model};
                ${
                  t.alignment.segments_below_threshold === 0
                    ? 'every segment is heard'
                    : html`<strong>${t.alignment.segments_below_threshold} of ${t.segments.length} segments not heard</strong> (marked
                        below)`
                }
              </dd>
            </div>`
          : ''
      }
      ${
        check && check.matches === false
          ? html`<div>
              <dt>Caption label</dt>
              <dd>The platform labels this track <code>${check.label ?? '—'}</code>; its text is <code>${check.detected ?? '—'}</code>.</dd>
            </div>`
          : ''
      }
    </dl>
    ${
      media
        ? html`<h2>Media</h2>
            ${
              media.contentType.startsWith('video/')
                ? html`<video controls preload="metadata" src="/dashboard/transcripts/${t.id}/media" data-player></video>`
                : html`<audio controls preload="metadata" src="/dashboard/transcripts/${t.id}/media" data-player></audio>`
            }`
        : ''
    }
    <h2>Download</h2>
    <ul class="downloads">
      ${EXPORT_FORMATS.map(
        (f) =>
          html`<li>
            <a href="/v1/transcripts/${t.id}/export?format=${f}" download
              >${f.toUpperCase()}${t.timing_granularity === 'none' && (f === 'srt' || f === 'vtt') ? ' (needs timestamps)' : ''}</a
            >
          </li>`,
      )}
    </ul>
    <h2>Text</h2>
    ${
      words.length > 0
        ? html`<p class="legend">
            Words are shaded by the recognizer’s confidence: <span class="w c3">90 % or more</span> <span class="w c2">70–90 %</span>
            <span class="w c1">50–70 %</span> <span class="w c0">under 50 %</span> (hover or focus a word for its value).
          </p>`
        : ''
    }
    <ol class="segments">
      ${segments}
    </ol>
    <h2>Delete</h2>
    <form
      method="post"
      action="/dashboard/transcripts/${t.id}/delete"
      data-confirm="Delete this transcript? It is hidden at once and purged."
    >
      ${csrfField(csrf)}<button type="submit" class="danger">Delete transcript</button>
    </form>`;
}

export function webhooksBody(
  endpoints: Endpoint[],
  deliveries: Delivery[],
  csrf: string,
  created?: Endpoint & { secret: string },
  values: { url?: string; description?: string } = {},
): SafeHtml {
  return html`${created ? secretOnce('Endpoint registered', 'webhook-secret', created.secret, `The signing secret of ${created.url}. It is shown only this once: store it where your receiver verifies signatures.`) : ''}
    <h2>Register an endpoint</h2>
    <form method="post" action="/dashboard/webhooks">
      ${csrfField(csrf)}
      ${field(
        'url',
        'HTTPS URL',
        html`<input
          id="url"
          name="url"
          type="url"
          required
          maxlength="2048"
          placeholder="https://example.com/hooks/transcripts"
          value="${values.url ?? ''}"
        />`,
      )}
      ${field(
        'description',
        'Description (optional)',
        html`<input id="description" name="description" maxlength="500" value="${values.description ?? ''}" />`,
      )}
      <button type="submit">Register endpoint</button>
    </form>
    <h2>Endpoints</h2>
    ${dataTable({
      caption: 'Webhook endpoints, newest first',
      columns: ['URL', 'Description', 'Created', 'State'],
      rows: endpoints,
      row: (e) =>
        html`<tr>
          <td class="break">${e.url}</td>
          <td>${e.description ?? ''}</td>
          <td>${time(e.created_at)}</td>
          <td>
            ${
              e.enabled
                ? html`<form
                    method="post"
                    action="/dashboard/webhooks/${e.id}/disable"
                    data-confirm="Disable this endpoint? It receives nothing more."
                  >
                    ${csrfField(csrf)}<button type="submit" class="danger" aria-label="Disable ${e.url}">Disable</button>
                  </form>`
                : html`disabled ${time(e.disabled_at)}`
            }
          </td>
        </tr>`,
      empty: html`<p>No endpoints yet.</p>`,
    })}
    <h2>Delivery log</h2>
    ${dataTable({
      caption: 'Delivery attempts, newest first',
      columns: ['Event', 'Endpoint', 'Attempt', 'Result', 'When', html`<span class="sr-only">Action</span>`],
      rows: deliveries,
      row: (d) =>
        html`<tr>
          <td>${d.event_type}<br /><code class="small">${d.event_id}</code></td>
          <td class="break">${d.url}</td>
          <td>${d.attempt}</td>
          <td>
            ${d.succeeded ? html`<span class="badge s-succeeded">delivered</span>` : html`<span class="badge s-failed">failed</span>`}
            ${d.status_code ?? ''} ${d.error ?? ''}
          </td>
          <td>${time(d.created_at)}</td>
          <td>
            <form method="post" action="/dashboard/webhooks/deliveries/${d.id}/resend">
              ${csrfField(csrf)}<button type="submit" aria-label="Resend event ${d.event_id}">Resend</button>
            </form>
          </td>
        </tr>`,
      empty: html`<p>No deliveries yet.</p>`,
    })}`;
}
